"""`jax.linear_transpose` and `jax.custom_gradient` (issue 13 item 1), against JAX's
results and errors (recorded from JAX 0.10.2) and finite differences."""
import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp


def _lin(x, y):
    return 2 * x + jnp.sum(y) * 3


def test_linear_transpose_values_as_jax():
    ft = jax.linear_transpose(_lin, np.ones(3, np.float32), np.ones(2, np.float32))
    cx, cy = ft(np.arange(3, dtype=np.float32))
    np.testing.assert_array_equal(np.asarray(cx), [0.0, 2.0, 4.0])   # JAX: [0. 2. 4.]
    np.testing.assert_array_equal(np.asarray(cy), [9.0, 9.0])        # JAX: [9. 9.]


def test_linear_transpose_is_the_adjoint():
    r = np.random.RandomState(0)
    m = r.randn(4, 3).astype(np.float32)
    f = lambda v: jnp.dot(m, v)  # noqa: E731
    ft = jax.linear_transpose(f, jax.ShapeDtypeStruct((3,), np.float32))
    ct = r.randn(4).astype(np.float32)
    np.testing.assert_allclose(np.asarray(ft(ct)[0]), m.T @ ct, rtol=1e-5)
    # <f(v), ct> == <v, f^T(ct)>
    v = r.randn(3).astype(np.float32)
    lhs = float(np.dot(np.asarray(f(v)), ct))
    rhs = float(np.dot(v, np.asarray(ft(ct)[0])))
    assert lhs == pytest.approx(rhs, rel=1e-5)
    # under jit, on complex values (the FFT is symmetric: its own transpose)
    gt = jax.jit(jax.linear_transpose(jnp.fft.fft, np.ones(4, np.complex64)))
    np.testing.assert_allclose(np.asarray(gt(np.ones(4, np.complex64))[0]), [4, 0, 0, 0],
                               atol=1e-6)


def test_linear_transpose_errors_as_jax():
    with pytest.raises(AssertionError):   # JAX: AssertionError (not linear)
        jax.linear_transpose(lambda x: x * x, 1.0)(1.0)
    with pytest.raises(TypeError, match="cotangent type does not match"):
        jax.linear_transpose(lambda x: 2 * x, 1.0)(np.ones(2))
    with pytest.raises(TypeError, match="only supports"):
        jax.linear_transpose(lambda x: x.astype(jnp.float32), np.ones(2, np.int32))


@jax.custom_gradient
def _clip_grad(x):
    y = jnp.sin(x)
    return y, lambda g: (g * 100.0 * x,)


@jax.custom_gradient
def _two_args(x, y):
    return x * y, lambda g: (g * y, g * x * 0.0 + 7.0)


def test_custom_gradient():
    assert float(_clip_grad(1.0)) == pytest.approx(np.sin(1.0))
    assert float(jax.grad(_clip_grad)(2.0)) == pytest.approx(200.0)
    assert float(jax.jit(jax.grad(_clip_grad))(2.0)) == pytest.approx(200.0)
    np.testing.assert_allclose(np.asarray(jax.vmap(jax.grad(_clip_grad))(jnp.arange(3.0))),
                               [0.0, 100.0, 200.0])
    gx, gy = jax.grad(_two_args, argnums=(0, 1))(3.0, 4.0)
    assert (float(gx), float(gy)) == (4.0, 7.0)
    # forward value unaffected, as JAX
    np.testing.assert_allclose(np.asarray(jax.jit(_two_args)(2.0, 5.0)), 10.0)
