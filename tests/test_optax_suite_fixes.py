"""The astjax differences from JAX that optax's own test suite found (issue 16, item
5; tests/ecosystem/run_optax_tests.py), each checked against JAX 0.10.2's behaviour
(values noted beside each case)."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax


def test_lax_broadcast_shapes():
    assert lax.broadcast_shapes((3, 1), (1, 4), (4,)) == (3, 4)
    assert lax.broadcast_shapes((2, 0), (1,)) == (2, 0)
    with pytest.raises(ValueError, match=r"Incompatible shapes for broadcasting: "
                                         r"shapes=\[\(3,\), \(4,\)\]"):
        lax.broadcast_shapes((3,), (4,))


def linear(x, y):
    return 2 * x + jnp.sum(y) * 3


def test_linear_transpose():
    t = astjax.linear_transpose(linear, jnp.ones(2), astjax.ShapeDtypeStruct((3,), jnp.float32))
    cx, cy = t(jnp.array([1.0, 2.0]))
    np.testing.assert_allclose(cx, [2.0, 4.0])
    np.testing.assert_allclose(cy, [9.0, 9.0, 9.0])
    with pytest.raises(TypeError, match="float or complex"):
        astjax.linear_transpose(linear, jnp.ones(2, jnp.int32), jnp.ones(3))


def index_empty(c, i, j):
    return c[i, j]


def test_integer_indexing_with_an_empty_result():
    # JAX: f32[0], no gather (the slice of a (0, 0) array would be out of range)
    args = (jnp.zeros((0, 0)), jnp.zeros(0, jnp.int32), jnp.zeros(0, jnp.int32))
    for f in (index_empty, astjax.jit(index_empty)):
        out = f(*args)
        assert out.shape == (0,) and out.dtype == jnp.float32
    assert jnp.zeros((4, 0))[jnp.array([1, 2])].shape == (2, 0)


def doubled_copy(y):
    return y.copy() * 2


def test_array_copy():
    x = jnp.arange(3.0)
    c = x.copy()
    assert c is not x
    np.testing.assert_array_equal(c, x)
    np.testing.assert_array_equal(astjax.jit(doubled_copy)(x), [0.0, 2.0, 4.0])


def test_round():
    x = jnp.arange(3.0) + 0.6
    r = round(x)  # JAX: Array([1, 2, 3], dtype=int32)
    assert r.dtype == jnp.int32
    np.testing.assert_array_equal(r, [1, 2, 3])
    assert int(round(jnp.float32(2.5))) == 2  # half to even
    np.testing.assert_allclose(round(jnp.array([0.66, 1.62]), 1), [0.7, 1.6], rtol=1e-6)


def swapped(x):
    return lax.pswapaxes(x, "i", 0)


def test_pswapaxes_swaps_the_mapped_axis():
    x = jnp.arange(6.0).reshape(2, 3, 1)[..., 0][:, :2]  # (2, 2)
    out = astjax.vmap(swapped, axis_name="i")(x)
    np.testing.assert_array_equal(out, np.asarray(x).T)


def plus_one(x):
    return x * 2 + 1


def test_log_compiles_records_each_compilation():
    import logging
    from astjax.compat._compile_log import log_compiles
    from astjax.codegen import runtime
    records = []

    class Collect(logging.Handler):
        def emit(self, record):
            records.append(record.getMessage())
    handler = Collect()
    logging.getLogger("jax").addHandler(handler)
    try:
        f = astjax.jit(plus_one)
        before = runtime.compile_mlir
        with log_compiles():
            f(jnp.ones(7))
            f(jnp.ones(7))  # cached: no second compilation
        assert runtime.compile_mlir is before
        f(jnp.ones(9))  # outside: not logged
    finally:
        logging.getLogger("jax").removeHandler(handler)
    jit_logs = [r for r in records if "jit(plus_one)" in r]
    assert len(jit_logs) == 1 and jit_logs[0].startswith("Finished XLA compilation of")


def gather_rows(x, i):
    return x[i]


def slice_rows(x, i):
    return lax.dynamic_slice(x, (i, 0), (1, 3))


def count_down(x):
    # a batched predicate: the loop becomes a masked loop over the lanes
    return lax.while_loop(lambda c: c[0] > 0, lambda c: (c[0] - 1, c[1] * 2.0), x)


@pytest.mark.parametrize("n", [0, 2])
def test_vmap_over_an_empty_batch(n):
    # optax's hungarian_algorithm vmap tests with k=0 (JAX: (0,), (0, 1, 3), (0,), (0, 3))
    x, i = jnp.zeros((n, 3)), jnp.zeros((n,), jnp.int32)
    assert astjax.vmap(gather_rows)(x, i).shape == (n,)
    assert astjax.vmap(slice_rows)(jnp.zeros((n, 2, 3)), i).shape == (n, 1, 3)
    k, y = astjax.vmap(count_down)((jnp.arange(n), jnp.ones((n, 3))))
    assert k.shape == (n,) and y.shape == (n, 3)
    np.testing.assert_array_equal(y, np.ones((n, 3)) * 2.0 ** np.arange(n)[:, None])


def sum_squares(x):
    return jnp.sum(x ** 2)


def test_grad_of_a_bfloat16_output():
    # JAX: grad accepts bfloat16 outputs (a floating dtype, though not an np.floating
    # subclass): Array([2, 4], dtype=bfloat16); optax's alias tests differentiate them
    g = astjax.grad(sum_squares)(jnp.array([1.0, 2.0], jnp.bfloat16))
    assert g.dtype == jnp.bfloat16
    np.testing.assert_array_equal(np.asarray(g, np.float32), [2.0, 4.0])
    h = astjax.jacfwd(sum_squares)(jnp.array([1.0, 2.0], jnp.bfloat16))
    np.testing.assert_array_equal(np.asarray(h, np.float32), [2.0, 4.0])


def choose_key(emit, new, old):
    return jnp.astype(jnp.where(emit, new, old), old.dtype)


def test_where_and_astype_on_typed_keys():
    # optax.MultiSteps selects between typed keys (noisy_sgd's state); JAX 0.10.2:
    # where(True, key(0), key(1)) is key(0)'s data [0 0]; where over split keys
    # [[1797259609 2579123966] [1948878966 4237131848]]
    k0, k1 = astjax.random.key(0), astjax.random.key(1)
    for f in (choose_key, astjax.jit(choose_key)):
        out = f(False, k0, k1)
        assert out.dtype == k0.dtype and out.shape == ()
        np.testing.assert_array_equal(astjax.random.key_data(out), [0, 1])
    ks = jnp.where(jnp.array([True, False]), astjax.random.split(k0), astjax.random.split(k1))
    np.testing.assert_array_equal(astjax.random.key_data(ks),
                                  [[1797259609, 2579123966], [1948878966, 4237131848]])
    with pytest.raises(ValueError, match="key<fry> is not a valid dtype for JAX type promotion"):
        jnp.where(True, k0, 1)
    with pytest.raises(ValueError, match="Cannot convert_element_type from key<fry> to float32"):
        jnp.astype(k0, jnp.float32)


@astjax.custom_jvp
def doubled(x):
    return x * 2


@doubled.defjvp
def _doubled_must_not_run(primals, tangents):
    raise AssertionError("the rule ran for an operand without a tangent")


def doubled_of_stopped(x):
    return doubled(lax.stop_gradient(x * 5)) + x


def test_custom_jvp_rule_does_not_run_for_a_stopped_operand():
    # optax perturbations' test_fun_derivative_not_used: JAX runs a custom_jvp rule
    # only for operands that carry a tangent; grad here is 1.0 in JAX
    assert float(astjax.grad(doubled_of_stopped)(1.0)) == 1.0
    assert float(astjax.jit(astjax.grad(doubled_of_stopped))(1.0)) == 1.0
    np.testing.assert_array_equal(astjax.vmap(astjax.grad(doubled_of_stopped))(jnp.ones(2)),
                                  [1.0, 1.0])
