"""`lax.reduce_window` (sum / max / min pooling): XLA against the NumPy reference over
strides, paddings and dilations; derivatives against float64 finite differences
(second order included); vmap against a loop; gradients of pooling against values
stored from JAX 0.10.2 (ties included)."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax
from astjax.errors import NotImplementedInAstjaxError
from astjax.test_util import check_grads


WINDOWS = [  # window, strides, padding, base dilation, window dilation
    ((1, 3, 3, 1), (1, 2, 2, 1), "VALID", None, None),
    ((1, 2, 3, 1), (1, 1, 2, 1), "SAME", None, None),
    ((1, 2, 2, 1), (1, 1, 1, 1), ((0, 0), (1, 0), (0, 2), (0, 0)), (1, 2, 1, 1), (1, 1, 2, 1)),
]
MONOIDS = [(lax.add, 0.0), (lax.max, -np.inf), (lax.min, np.inf)]


def _pool(comp, init, win):
    return lambda x: lax.reduce_window(x, init, comp, *win)


def _x(dtype=np.float32):
    return np.random.RandomState(0).randn(2, 7, 6, 3).astype(dtype)


@pytest.mark.parametrize("comp, init", MONOIDS)
@pytest.mark.parametrize("win", WINDOWS)
def test_xla_matches_reference(comp, init, win):
    x = _x()
    f = _pool(comp, init, win)
    eqn = astjax.make_jaxpr(f)(x).jaxpr.eqns[-1]
    np.testing.assert_allclose(f(x), eqn.primitive.impl(x, **eqn.params), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(astjax.jit(f)(x), f(x), rtol=1e-6)


@pytest.mark.parametrize("comp, init", MONOIDS)
@pytest.mark.parametrize("win", WINDOWS)
def test_derivatives(comp, init, win, x64):
    x = _x(np.float64)
    dilated = win[3] is not None
    modes = ("fwd",) if dilated and comp is not lax.add else ("fwd", "rev")
    check_grads(_pool(comp, init, win), (x,), order=2, modes=modes)


def test_max_pool_gradient_with_dilation_is_a_located_error():
    f = lambda x: jnp.sum(_pool(lax.max, -np.inf, WINDOWS[2])(x))
    with pytest.raises(NotImplementedInAstjaxError, match="dilation"):
        astjax.grad(f)(_x())


@pytest.mark.parametrize("comp, init", MONOIDS)
def test_vmap(comp, init):
    xs = np.random.RandomState(1).randn(3, 2, 7, 6, 3).astype(np.float32)
    f = _pool(comp, init, WINDOWS[1])
    np.testing.assert_allclose(astjax.vmap(f)(xs), np.stack([f(x) for x in xs]), rtol=1e-6)
    g = astjax.grad(lambda x: jnp.sum(jnp.sin(f(x))))
    np.testing.assert_allclose(astjax.jit(astjax.vmap(g))(xs), np.stack([g(x) for x in xs]),
                               rtol=1e-5, atol=1e-6)


# JAX 0.10.2: x = (arange(50).reshape(2,5,5,1) % 7) / 3 (ties), SAME 2x2/2 max pooling,
# 3x3/2 sum pooling
JAX_MAX_GRAD = [[0.0, 0.0, 0.0, 0.540302, 0.235238], [0.0, -0.416147, 0.0, 0.0, 0.0],
                [0.0, 0.235238, 0.0, -0.416147, 0.0], [0.0, 0.0, 0.0, 0.0, -0.095724],
                [-0.416147, 0.0, 0.0, 0.785887, 0.540302]]
JAX_SUM_GRAD = [[0.998955, 0.016447, -0.982508, -0.225705, 0.756802],
                [1.577153, -0.292649, -1.869802, -1.769986, 0.099816],
                [0.578198, -0.309096, -0.887294, -1.544281, -0.656987],
                [0.857614, -0.897177, -1.754791, -2.552898, -0.798107],
                [0.279416, -0.588081, -0.867497, -1.008617, -0.14112]]


def test_pooling_gradients_match_jax():
    x = (np.arange(50).reshape(2, 5, 5, 1) % 7).astype(np.float32) / 3
    f = lambda x: jnp.sum(jnp.sin(lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1),
                                                    (1, 2, 2, 1), "SAME")))
    g = lambda x: jnp.sum(jnp.cos(lax.reduce_window(x, 0.0, lax.add, (1, 3, 3, 1),
                                                    (1, 2, 2, 1), "SAME")))
    np.testing.assert_allclose(astjax.grad(f)(x)[0, :, :, 0], JAX_MAX_GRAD, atol=1e-5)
    np.testing.assert_allclose(astjax.grad(g)(x)[1, :, :, 0], JAX_SUM_GRAD, atol=1e-5)


def test_other_init_values_and_unsupported_reducers():
    x = _x()
    got = lax.reduce_window(x, 1.0, lax.add, (1, 2, 2, 1), (1, 1, 1, 1), "VALID")
    want = lax.reduce_window(x, 0.0, lax.add, (1, 2, 2, 1), (1, 1, 1, 1), "VALID") + 1.0
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    # a general reducer is the general reduce_window (tests/test_lax_rest.py)
    prod = lax.reduce_window(x, 1.0, lax.mul, (1, 2, 2, 1), (1, 1, 1, 1), "VALID")
    xn = np.asarray(x)
    want = xn[:, :-1, :-1] * xn[:, 1:, :-1] * xn[:, :-1, 1:] * xn[:, 1:, 1:]
    np.testing.assert_allclose(prod, want, rtol=1e-5, atol=1e-6)


def test_printed_source_runs():
    x = _x()
    f = lambda x: jnp.sum(jnp.sin(lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1),
                                                    (1, 2, 2, 1), "SAME")))
    src_fn = astjax.source_function(astjax.grad(f), x)
    np.testing.assert_allclose(src_fn(x), astjax.grad(f)(x), rtol=1e-6)
    assert "lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1)" in astjax.source(f, x)
