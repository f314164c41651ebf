"""`jnp.vectorize`, with and without a gufunc signature."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp


def test_signature_dot_over_loop_dims():
    dot = jnp.vectorize(jnp.dot, signature="(n),(n)->()")
    a = np.arange(12.0, dtype=np.float32).reshape(4, 3)
    b = np.arange(3.0, dtype=np.float32)
    np.testing.assert_allclose(dot(a, b), a @ b)
    np.testing.assert_allclose(astjax.jit(dot)(a, b), a @ b)


def test_signature_matmul_broadcasts_loop_dims():
    mm = jnp.vectorize(jnp.matmul, signature="(m,n),(n,k)->(m,k)")
    x = np.random.RandomState(0).randn(5, 2, 3).astype(np.float32)
    y = np.random.RandomState(1).randn(3, 4).astype(np.float32)
    np.testing.assert_allclose(mm(x, y), x @ y, rtol=1e-5)


def test_several_outputs():
    f = jnp.vectorize(lambda x: (x.sum(), x * 2), signature="(n)->(),(n)")
    s, d = f(np.ones((2, 3), np.float32))
    np.testing.assert_allclose(s, [3.0, 3.0])
    assert d.shape == (2, 3)


def _relu_minus(x, y):
    if x > y:
        return x - y
    return y


def test_user_python_control_flow_is_converted():
    vf = jnp.vectorize(_relu_minus)
    x = np.arange(4.0, dtype=np.float32)
    want = [1.5, 1.5, 0.5, 1.5]
    np.testing.assert_allclose(vf(x, 1.5), want)
    np.testing.assert_allclose(astjax.jit(vf)(x, 1.5), want)


def test_excluded_and_none_pass_through():
    f = jnp.vectorize(lambda x, p: x ** p, excluded={1})
    np.testing.assert_allclose(f(np.arange(3.0), 2), [0.0, 1.0, 4.0])
    g = jnp.vectorize(lambda x, y: x if y is None else x + y)
    np.testing.assert_allclose(g(np.arange(3.0), None), [0.0, 1.0, 2.0])


def test_errors():
    dot = jnp.vectorize(jnp.dot, signature="(n),(n)->()")
    with pytest.raises(ValueError, match="inconsistent size for core dimension 'n'"):
        dot(np.ones((2, 3)), np.ones(4))
    with pytest.raises(ValueError, match="does not have enough dimensions"):
        dot(np.ones(()), np.ones(3))
    with pytest.raises(ValueError, match="not a valid gufunc signature"):
        jnp.vectorize(jnp.dot, signature="(n)(n)->()")
    with pytest.raises(ValueError, match="does not match the core dimensions"):
        jnp.vectorize(lambda x: x, signature="(n)->()")(np.ones((2, 3)))
    with pytest.raises(ValueError, match="negative"):
        jnp.vectorize(jnp.dot, excluded={-1})
