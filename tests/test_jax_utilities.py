"""`jax.test_util`, `jax.flatten_util`, `jax.typing`, `jax.typeof`, `jax.jacobian`
(issue 13, item 1): each against NumPy / the behaviour JAX documents."""
import functools

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import test_util
from astjax.flatten_util import ravel_pytree


def _poly(x, y):
    return jnp.sum(jnp.sin(x) * y ** 2) + jnp.prod(jnp.tanh(y))


@pytest.mark.parametrize("modes", [("fwd",), ("rev",), ("fwd", "rev"), ("lin",)])
def test_check_grads_passes_on_correct_derivatives(modes):
    x = np.linspace(0.1, 0.9, 3).astype(np.float32)
    y = np.array([0.3, -0.7, 1.1], np.float32)
    test_util.check_grads(_poly, (x, y), order=2, modes=modes)


def test_check_grads_float64_tight():
    with _x64():
        x = np.linspace(0.1, 0.9, 4)
        test_util.check_grads(lambda v: jnp.sum(jnp.exp(v) * jnp.cos(v)), (x,), order=3)


class _x64:
    def __enter__(self):
        self.old = astjax.config.read("jax_enable_x64")
        astjax.config.update("jax_enable_x64", True)

    def __exit__(self, *a):
        astjax.config.update("jax_enable_x64", self.old)


@astjax.custom_jvp
def _wrong_sin(x):
    return jnp.sin(x)


@_wrong_sin.defjvp
def _wrong_sin_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return jnp.sin(x), 2.0 * jnp.cos(x) * t        # deliberately twice the derivative


@pytest.mark.parametrize("modes", [("fwd",), ("rev",)])
def test_check_grads_catches_a_wrong_derivative(modes):
    x = np.linspace(0.1, 0.9, 3).astype(np.float32)
    with pytest.raises(AssertionError, match="tangent|cotangent projection"):
        test_util.check_grads(lambda v: jnp.sum(_wrong_sin(v)), (x,), order=1, modes=modes)


def test_check_jvp_and_vjp_directly():
    f = lambda x: jnp.cos(x) * x  # noqa: E731
    x = (np.array([0.5, 1.5], np.float32),)
    test_util.check_jvp(f, functools.partial(astjax.jvp, f), x)
    test_util.check_vjp(f, functools.partial(astjax.vjp, f), x)
    bad_jvp = lambda args, ts: (f(*args), 3.0 * ts[0])  # noqa: E731
    with pytest.raises(AssertionError, match="tangent"):
        test_util.check_jvp(f, bad_jvp, x)


def test_numerical_jvp_matches_analytic():
    x = np.array([0.2, 0.4])
    t = np.array([1.0, -1.0])
    got = test_util.numerical_jvp(np.sin, (x,), (t,))
    np.testing.assert_allclose(got, np.cos(x) * t, rtol=1e-7)


def test_ravel_pytree_roundtrip_and_dtypes():
    tree = {"w": np.arange(6, dtype=np.float32).reshape(2, 3),
            "b": (np.arange(3, dtype=np.int32), np.float32(2.5))}
    flat, unravel = ravel_pytree(tree)
    assert flat.shape == (10,) and flat.dtype == np.float32
    # dict keys in sorted order: "b" (an int32 vector, then a scalar), then "w"
    np.testing.assert_array_equal(np.asarray(flat), [0, 1, 2, 2.5, 0, 1, 2, 3, 4, 5])
    back = unravel(flat)
    assert back["b"][0].dtype == np.int32 and back["w"].shape == (2, 3)
    np.testing.assert_array_equal(np.asarray(back["w"]), tree["w"])
    np.testing.assert_array_equal(np.asarray(back["b"][0]), tree["b"][0])
    with pytest.raises(ValueError, match="expected an array of shape"):
        unravel(jnp.zeros(9))
    with pytest.raises(TypeError, match="expected an array of dtype"):
        unravel(jnp.zeros(10, jnp.int32))


def test_ravel_pytree_empty_and_under_jit():
    flat, unravel = ravel_pytree(())
    assert flat.shape == (0,) and flat.dtype == np.float32 and unravel(flat) == ()

    def norm_sq(params):
        v, _ = ravel_pytree(params)
        return jnp.sum(v * v)
    p = (jnp.ones(3), jnp.full((2,), 2.0))
    assert float(astjax.jit(norm_sq)(p)) == 11.0
    g = astjax.grad(norm_sq)(p)
    np.testing.assert_allclose(np.asarray(g[1]), [4.0, 4.0])


def test_typeof_and_jacobian():
    a = astjax.typeof(np.ones((2, 3), np.float32))
    assert a.shape == (2, 3) and a.dtype == np.float32 and not a.weak_type
    assert astjax.typeof(1.0).weak_type
    with pytest.raises(TypeError):
        astjax.typeof("not an array")
    f = lambda x: jnp.sin(x) * x[0]  # noqa: E731
    x = np.array([0.5, 1.0], np.float32)
    np.testing.assert_allclose(np.asarray(astjax.jacobian(f)(x)),
                               np.asarray(astjax.jacfwd(f)(x)), rtol=1e-6)


def test_typing_names():
    from astjax.typing import ArrayLike, DTypeLike

    def scale(x: ArrayLike, dtype: DTypeLike = None):
        return jnp.asarray(x, dtype) * 2
    assert float(scale(1.5)) == 3.0
    assert "ArrayLike" in astjax.typing.__all__
