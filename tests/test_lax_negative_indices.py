"""`lax.dynamic_slice` and its five relatives read a negative start index from the end
of its axis, as JAX 0.10.2's default `allow_negative_indices=True` does (astjax used to
clamp it to 0: `dynamic_slice(arange(5), [-2], [2])` gave [0, 1], JAX [3, 4]); with
`allow_negative_indices=False` a traced one is clamped and a concrete one is JAX's
ValueError. The reference is NumPy: shift a negative start by the axis length, then
clamp it into [0, dim - size]."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax

X = np.arange(10.0, dtype=np.float32).reshape(2, 5)


def _start(i, d, size, allow=True):
    i = i + d if (i < 0 and allow) else i
    return min(max(i, 0), d - size)


def _window(starts, sizes, allow=True):
    s = [_start(i, d, n, allow) for i, d, n in zip(starts, X.shape, sizes)]
    return X[tuple(slice(a, a + n) for a, n in zip(s, sizes))]


def _updated(upd, starts, allow=True):
    out = X.copy()
    s = [_start(i, d, n, allow) for i, d, n in zip(starts, X.shape, upd.shape)]
    out[tuple(slice(a, a + n) for a, n in zip(s, upd.shape))] = upd
    return out


STARTS = [(0, -2), (-1, -5), (1, -9), (-2, 3), (0, 4)]


@pytest.mark.parametrize("starts", STARTS)
@pytest.mark.parametrize("how", ["python", "array", "jit"])
def test_dynamic_slice_and_update(starts, how):
    sizes, upd = (1, 2), np.full((1, 2), -1.0, np.float32)
    if how == "jit":
        got = astjax.jit(lambda i, j: lax.dynamic_slice(X, (i, j), sizes))(*starts)
        got_u = astjax.jit(lambda i, j: lax.dynamic_update_slice(X, upd, (i, j)))(*starts)
    else:
        idx = starts if how == "python" else tuple(jnp.int32(i) for i in starts)
        got, got_u = lax.dynamic_slice(X, idx, sizes), lax.dynamic_update_slice(X, upd, idx)
    np.testing.assert_array_equal(got, _window(starts, sizes))
    np.testing.assert_array_equal(got_u, _updated(upd, starts))


@pytest.mark.parametrize("index", [-1, -2, 1])
def test_in_dim_variants(index):
    def f(i):
        return (lax.dynamic_slice_in_dim(X, i, 2, axis=1),
                lax.dynamic_index_in_dim(X, i, axis=0, keepdims=False),
                lax.dynamic_update_slice_in_dim(X, np.zeros((2, 1), np.float32), i, axis=1),
                lax.dynamic_update_index_in_dim(X, np.zeros(5, np.float32), i, 0))
    for got in (f(index), astjax.jit(f)(index)):
        np.testing.assert_array_equal(got[0], _window((0, index), (2, 2)))
        np.testing.assert_array_equal(got[1], _window((index, 0), (1, 5))[0])
        np.testing.assert_array_equal(got[2], _updated(np.zeros((2, 1), np.float32), (0, index)))
        np.testing.assert_array_equal(got[3], _updated(np.zeros((1, 5), np.float32), (index, 0)))


def test_allow_negative_indices_false():
    traced = lax.dynamic_slice(X, (jnp.int32(0), jnp.int32(-2)), (2, 2),
                               allow_negative_indices=False)
    np.testing.assert_array_equal(traced, _window((0, -2), (2, 2), allow=False))
    per_index = lax.dynamic_slice(X, (jnp.int32(-1), jnp.int32(-2)), (1, 2),
                                  allow_negative_indices=(True, False))
    np.testing.assert_array_equal(per_index, X[1:2, 0:2])
    with pytest.raises(ValueError, match="Index -2 is out of bounds for dimension 5 if "
                                         "allow_negative_indices=False"):
        lax.dynamic_slice(X, (0, -2), (2, 2), allow_negative_indices=False)


def test_staged_form_and_derivative():
    """A traced start is shifted by `select_n(i < 0, i, i + d)` before the primitive (as
    JAX stages it); the gradient flows to the window read from the end."""
    text = str(astjax.make_jaxpr(lambda x, i: lax.dynamic_slice(x, (0, i), (2, 2)))(X, 1))
    assert text == """{ lambda ; a:f32[2,5] b:i32[]. let
    c:bool[] = lt b 0:i32[]
    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b
    e:i32[] = add d 5:i32[]
    f:i32[] = select_n c b e
    g:f32[2,2] = dynamic_slice[slice_sizes=(2, 2)] a 0:i32[] f
  in (g,) }"""   # JAX 0.10.2's text: the weak Python-int index made strong before the add
    g = astjax.grad(lambda x: lax.dynamic_slice(x, (0, jnp.int32(-2)), (2, 2)).sum())(X)
    want = np.zeros_like(X)
    want[:, 3:] = 1
    np.testing.assert_array_equal(g, want)


@pytest.mark.parametrize("i", [-12, -6, -5, -1, 0, 4, 7])
def test_jnp_indexing_normalizes_once(i):
    """jnp's integer indexing normalizes a traced index itself and asks the dynamic
    slice not to: an index below -n is shifted once, then clamped (as JAX)."""
    got = astjax.jit(lambda x, i: (x[:, i], lax.dynamic_slice(x, (0, i), (2, 2))))(X, i)
    j = min(max(i + 5 if i < 0 else i, 0), 4)
    np.testing.assert_array_equal(got[0], X[:, j])
    np.testing.assert_array_equal(got[1], _window((0, i), (2, 2)))
