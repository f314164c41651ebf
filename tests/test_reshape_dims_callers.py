"""The library functions JAX writes with one `lax.reshape(..., dimensions)` stage that
equation, as JAX's `make_jaxpr` shows it: `jnp.concatenate` of one array (its leading
slices joined), `jnp.average`'s weights along unordered axes, and
`random.categorical(replace=False)` (JAX's `top_k`, int32 indices even under x64 --
astjax's argsort gave int64 there, a silent difference). Values from NumPy or recorded
on JAX 0.10.2."""
import numpy as np
import pytest

import astjax as jax
from astjax import numpy as jnp

A = np.arange(24, dtype=np.int32).reshape(3, 2, 4)


def _reshapes(f, *args):
    return [(e.primitive.name, e.params.get("dimensions")) for e in
            jax.make_jaxpr(f)(*args).jaxpr.eqns if e.primitive.name in ("reshape", "transpose")]


def test_concatenate_of_one_array_is_one_reshape():
    assert _reshapes(lambda a: jnp.concatenate(a, axis=1), A) == [("reshape", (1, 0, 2))]
    assert _reshapes(lambda a: jnp.concatenate(a, axis=0), A) == [("reshape", None)]
    for axis in (0, 1, -1, None):
        want = np.concatenate(list(A), axis=axis)
        np.testing.assert_array_equal(jnp.concatenate(A, axis=axis), want)
        np.testing.assert_array_equal(jax.jit(lambda a: jnp.concatenate(a, axis=axis))(A), want)
    assert jnp.concatenate(A, axis=1, dtype=jnp.float32).dtype == np.float32
    with pytest.raises(ValueError, match="Zero-dimensional arrays cannot be concatenated"):
        jnp.concatenate(A[0, 0])
    with pytest.raises(ValueError, match="Need at least one array to concatenate"):
        jnp.concatenate(np.zeros((0, 2)))
    with pytest.raises(ValueError, match="out of bounds"):
        jnp.concatenate(A, axis=2)


def test_average_weights_along_unordered_axes_is_one_reshape():
    a = A.astype(np.float32)
    w = np.arange(12.0, dtype=np.float32).reshape(4, 3)
    f = lambda a, w: jnp.average(a, axis=(2, 0), weights=w)   # noqa: E731
    assert _reshapes(f, a, w) == [("reshape", (1, 0))]
    want = (a * w.T[:, None, :]).sum((2, 0)) / w.sum()
    np.testing.assert_allclose(jax.jit(f)(a, w), want, rtol=1e-6)


# JAX 0.10.2: categorical(key(3), logits, axis, shape, replace=False), x64 on or off
CATEGORICAL = [
    ((3, 5), -1, (2, 3), [3, 0, 4, 1, 2, 0]),
    ((4, 2, 6), 2, (5, 4, 2), [3, 4, 2, 5, 3, 2, 4, 0, 1, 1, 5, 0, 2, 5, 3, 1]),
]


@pytest.mark.parametrize("x64", [False, True])
def test_categorical_without_replacement_as_jax(x64):
    old = jax.config.read("jax_enable_x64")
    jax.config.update("jax_enable_x64", x64)
    try:
        k = jax.random.key(3)
        for lshape, axis, shape, want in CATEGORICAL[:1] if x64 else CATEGORICAL:
            f = jax.jit(lambda k: jax.random.categorical(  # noqa: B023
                k, np.zeros(lshape, np.float32), axis=axis, shape=shape, replace=False))
            r = f(k)
            assert r.dtype == np.int32 and r.shape == shape
            assert np.asarray(r).ravel().tolist()[:16] == want
            assert [e.primitive.name for e in jax.make_jaxpr(f)(k).jaxpr.eqns[0].params[
                "jaxpr"].jaxpr.eqns][-2:] == ["top_k", "reshape"]
    finally:
        jax.config.update("jax_enable_x64", old)


def test_vmapped_convolution_folds_the_batch_axis_with_one_reshape():
    """vmap of a convolution over both operands merges the mapped axis into the features
    with JAX's one reshape (`dimensions` moving it), as JAX's `_reshape_axis_into`."""
    rng = np.random.default_rng(0)
    lhs = rng.standard_normal((3, 2, 2, 5, 5)).astype(np.float32)
    rhs = rng.standard_normal((3, 4, 2, 3, 3)).astype(np.float32)
    f = lambda l, r: jax.lax.conv_general_dilated(l, r, (1, 1), "SAME")   # noqa: E731
    assert _reshapes(jax.vmap(f), lhs, rhs) == [
        ("reshape", (1, 0, 2, 3, 4)), ("reshape", None), ("reshape", None),
        ("transpose", None)]
    want = np.stack([np.asarray(f(l, r)) for l, r in zip(lhs, rhs)])
    np.testing.assert_allclose(jax.jit(jax.vmap(f))(lhs, rhs), want, rtol=1e-5, atol=1e-5)
