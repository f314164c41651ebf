"""`grad` / `value_and_grad` close over arguments they do not differentiate that are
not arrays (functions, modules, unhashable objects), as JAX's do — eagerly, inside
`jit`, and by keyword; differentiating such an argument is still an error."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import ArgumentTypeError


def _loss(w, act, scale=1.0):
    return jnp.sum(act(w) * scale)


class _Unhashable:
    __hash__ = None

    def __init__(self, f):
        self.f = f

    def __call__(self, x):
        return self.f(x)


W = np.array([0.5, -1.0], np.float32)
D_TANH = 1 - np.tanh(W) ** 2


def test_eager_positional_keyword_and_unhashable():
    g = astjax.grad(_loss)
    np.testing.assert_allclose(g(W, jnp.tanh), D_TANH, rtol=1e-6)
    np.testing.assert_allclose(g(W, jnp.tanh, scale=2.0), 2 * D_TANH, rtol=1e-6)
    np.testing.assert_allclose(g(W, act=jnp.tanh), D_TANH, rtol=1e-6)
    np.testing.assert_allclose(g(W, _Unhashable(jnp.tanh)), D_TANH, rtol=1e-6)
    v, dv = astjax.value_and_grad(_loss)(W, jnp.sin)
    np.testing.assert_allclose(v, np.sum(np.sin(W)), rtol=1e-6)
    np.testing.assert_allclose(dv, np.cos(W), rtol=1e-6)


def _inside(w):
    return astjax.grad(_loss)(w, jnp.sin)


def test_inside_jit():
    np.testing.assert_allclose(astjax.jit(_inside)(W), np.cos(W), rtol=1e-6)


def test_differentiating_a_function_argument_is_an_error():
    with pytest.raises(ArgumentTypeError, match="not an array"):
        astjax.grad(_loss, argnums=1)(W, jnp.tanh)
