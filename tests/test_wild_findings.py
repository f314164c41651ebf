"""Regressions found by running public JAX programs unchanged (tests/wild/run.py).

Each test is a reduced repro written against astjax's API, holding the value JAX 0.10.2
computes (bit patterns where the finding was a rounding difference that compounded
over a training loop)."""
from __future__ import annotations

import numpy as np

import astjax as jax
import astjax.numpy as jnp


def _bits(x) -> str:
    return np.asarray(x, np.float32).tobytes().hex()


def test_div_derivative_in_the_divisor_rounds_as_jax():
    # gaussian_process_regression.py: x / lengthscale; JAX's rule is (-t * x) * y**-2,
    # (-t * (x / y)) / y rounded one ulp away and the fit drifted from JAX's
    x, y = np.float32(2.969660758972168), np.float32(0.9486619234085083)
    assert _bits(jax.grad(lambda y: x / y)(y)) == "772f53c0"
    assert _bits(jax.jit(jax.grad(lambda y: x / y))(y)) == "772f53c0"
    assert _bits(jax.jvp(lambda y: x / y, (y,), (np.float32(1.0),))[1]) == "772f53c0"
    xs = np.array([2.969660758972168, 2.951974391937256, 2.469142436981201], np.float32)
    ys = np.array([0.9486619234085083, 1.1141653060913086, 0.43103891611099243], np.float32)
    assert _bits(jax.vmap(jax.grad(lambda y, x: x / y))(ys, xs)) == "772f53c0483118c05da254c1"


def test_logaddexp_derivative_is_jaxs_custom_rule():
    # gaussian_process_regression.py: softplus as logaddexp(x, 0.); JAX differentiates
    # logaddexp by its custom JVP exp(x - out), not through max / log1p / exp
    v = np.frombuffer(bytes.fromhex("5204a0c0"), np.float32)[0]   # -5.0005274
    assert _bits(jax.grad(lambda t: jnp.logaddexp(t, 0.))(v)) == "4a32db3b"
    assert _bits(jax.jit(jax.grad(jax.nn.softplus))(v)) == "4a32db3b"
    assert _bits(jax.grad(lambda t: jnp.logaddexp(t, 2.5))(np.float32(1.3))) == "d5076d3e"
    assert _bits(jax.grad(lambda t: jnp.logaddexp(0.7, t))(np.float32(-3.1))) == "5c40b33c"


def test_logaddexp_derivative_at_a_tie_and_at_infinity_is_jaxs():
    # the custom rule's values where the formula's derivative is not: 1/2 per operand at
    # a tie, and exp(x - 0) against +inf (JAX replaces an infinite output by 0 there)
    assert float(jax.grad(lambda t: jnp.logaddexp(t, t))(np.float32(1.0))) == 1.0
    assert _bits(jax.grad(lambda t: jnp.logaddexp(t, jnp.inf))(np.float32(1.0))) == \
        _bits(np.float32(2.7182817))
    assert "custom_jvp_call" in str(jax.make_jaxpr(jnp.logaddexp)(1.0, 2.0))


def test_norm_logpdf_is_jaxs_expression_and_keeps_weak_types():
    # advi.py: norm.logpdf as (log(2 pi s**2) + (x - loc)**2 / s**2) / -2, as JAX writes it;
    # -0.5 * (z * z + log(s * s)) - 0.5 * log(2 pi) rounds differently (values, gradients)
    from astjax.scipy.stats import norm
    x = np.linspace(-3, 3, 7, dtype=np.float32)
    assert _bits(jax.jit(norm.logpdf)(x, 0.3, np.float32(1.7))) == \
        "845a55c0bf5817c05cf8debfa289bbbf5165c4bf688bf9bff47d2dc0"
    g = jax.jit(jax.grad(lambda s: norm.logpdf(x, 0.3, s).sum()))(np.float32(1.7))
    assert _bits(g) == "13d9da3f"
    assert _bits(jax.jit(jax.grad(lambda s: norm.logpdf(x, 0.3, s)[2]))(np.float32(1.7))) == \
        "ab1c7abe"
    r = norm.logpdf(2, 1, 3)
    assert _bits(r) == _bits(np.float32(-2.0731065)) and r.weak_type
    assert norm.pdf(1.0).weak_type


def test_an_object_with_func_and_self_runs_its_own_call():
    # equinox's bound methods are objects holding `__func__` / `__self__` (not
    # `types.MethodType`): `vmap(model.loss)` read the object's `__code__` (realnvp_eqx)
    class Bound:
        def __init__(self, f, o):
            self.__func__, self.__self__ = f, o

        def __call__(self, *a):
            return self.__func__(self.__self__, *a)

    class Model:
        w = jnp.arange(3.0)

    def loss(self, x):
        return jnp.sum(self.w * x)

    b = Bound(loss, Model())
    np.testing.assert_array_equal(jax.vmap(b)(jnp.ones((4, 3))), [3, 3, 3, 3])  # as JAX
    np.testing.assert_array_equal(jax.grad(b)(jnp.ones(3)), [0, 1, 2])
    assert float(jax.lax.cond(True, b, b, jnp.ones(3))) == 3.0
