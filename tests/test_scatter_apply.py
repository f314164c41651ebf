"""`lax.scatter_apply` applies `func` once per time an index names an element, as
jax 0.10.2's (XLA's scatter with `func` as its combiner: an element named k times is
func applied k deep); astjax applied it once per distinct index. Values recorded
against jax 0.10.2, eager, under `jit` and `vmap`."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax

DN = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                 scatter_dims_to_operand_dims=(0,))
X = np.array([1.0, 2.0, 3.0, 4.0, 5.0], np.float32)
IDX = np.array([[1], [3], [1], [1], [7], [-1]])   # 1 three times; 7 and -1 out of bounds


def _affine(v):
    return v * 2.0 + 1.0


def _apply(x, idx, mode=None):
    return lax.scatter_apply(x, idx, _affine, DN, update_shape=(6,), mode=mode)


@pytest.mark.parametrize("run", [_apply, astjax.jit(_apply, static_argnums=2)], ids=["eager", "jit"])
def test_repeated_index_applies_func_per_occurrence(run):
    # jax 0.10.2
    np.testing.assert_array_equal(run(X, IDX), [1, 23, 3, 9, 5])
    np.testing.assert_array_equal(run(X, IDX, "clip"), [3, 23, 3, 9, 11])


def test_vmap_batched_operand_and_indices():
    xs, idxs = np.stack([X, X * 10]), np.stack([IDX, IDX[::-1]])
    np.testing.assert_array_equal(astjax.vmap(_apply)(xs, idxs),
                                  [[1, 23, 3, 9, 5], [10, 167, 30, 81, 50]])   # jax 0.10.2
    three = np.array([[[1], [1], [0]], [[4], [4], [4]]])
    got = astjax.jit(astjax.vmap(lambda i: lax.scatter_apply(X, i, _affine, DN,
                                                             update_shape=(3,))))(three)
    np.testing.assert_array_equal(got, [[3, 11, 3, 4, 5], [1, 2, 3, 4, 47]])


def test_windows_named_twice():
    dn = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,))
    y = np.arange(12.0, dtype=np.float32).reshape(4, 3) + 2
    got = lax.scatter_apply(y, np.array([[0], [2], [0], [5]]), jnp.sqrt, dn, update_shape=(4, 2))
    assert [hex(v) for v in np.asarray(got).ravel().view(np.uint32)] == [hex(v) for v in [
        0x3f9837f0, 0x3fa8751d, 0x40800000, 0x40a00000, 0x40c00000, 0x40e00000,
        0x403504f3, 0x40400000, 0x41200000, 0x41300000, 0x41400000, 0x41500000]]


def test_integer_operand_and_func_dtype():
    x = np.arange(5, dtype=np.int32)
    got = lax.scatter_apply(x, IDX, lambda v: v * 3, DN, update_shape=(6,))
    np.testing.assert_array_equal(got, [0, 27, 2, 9, 4])   # jax 0.10.2
    np.testing.assert_array_equal(lax.scatter_apply(x, IDX, lambda v: 3, DN, update_shape=(6,)),
                                  [0, 3, 2, 3, 4])
    # JAX: a ValueError (the scatter region's types disagree)
    with pytest.raises(ValueError, match="scatter_apply: func must return one int32"):
        lax.scatter_apply(x, IDX, lambda v: v * 1.5, DN, update_shape=(6,))


def test_grad_chains_func_per_occurrence():
    """JAX raises NotImplementedError here ("scatter_apply JVP not implemented");
    astjax differentiates the applications: d(f(f(f(x))))/dx = 8 where x[1] is
    named three times (it gave 6 before: neither JAX's error nor the derivative)."""
    g = astjax.grad(lambda x: jnp.sum(_apply(x, IDX)))(X)
    np.testing.assert_array_equal(g, [1, 8, 1, 2, 1])
    np.testing.assert_array_equal(astjax.jacfwd(lambda x: _apply(x, IDX))(X),
                                  np.diag([1, 8, 1, 2, 1]).astype(np.float32))


@pytest.mark.parametrize("wrap", [lambda f: f, astjax.jit], ids=["eager", "jit"])
def test_func_sees_each_element_as_a_scalar(wrap):
    # JAX stages `func` as the scatter's region, on scalars: `v / v.sum()` is 1 at every
    # named element (astjax applied it to the whole array: 0.0142 at x[1]); jax 0.10.2
    idx = np.array([[1], [3], [1]])
    run = wrap(lambda x: lax.scatter_apply(x, idx, lambda v: v / v.sum(), DN, update_shape=(3,)))
    np.testing.assert_array_equal(run(X), [1, 1, 3, 1, 5])
    size = lambda v: v + jnp.ones(()) * v.size   # noqa: E731
    np.testing.assert_array_equal(lax.scatter_apply(X, idx, size, DN, update_shape=(3,)),
                                  [1, 4, 3, 5, 5])
