"""The scaled complementary error function `erfcx(x) = exp(x**2) erfc(x)`, and
Spence's function (the dilogarithm `spence(x) = Li2(1 - x)`).

Below x = 2.5 the product itself is accurate (erfc is computed to full relative
precision and exp(x**2) loses only about x**2 ulps); above, where erfc underflows, the
continued fraction erfcx(x) = 1 / (sqrt(pi) (x + (1/2) / (x + 1 / (x + (3/2) / ...))))
evaluated backwards from a fixed depth (`lax.fori_loop`). The derivative is the
closed form 2 x erfcx(x) - 2 / sqrt(pi), as JAX's `custom_jvp`.

`spence` sums Li2(u) = sum u^k / k^2 for u <= 1/2 only, reaching the rest through
Euler's reflection Li2(z) + Li2(1 - z) = pi^2/6 - log z log(1 - z) and the inversion
spence(x) = -log(x)^2 / 2 - spence(1 / x) for x > 1. Its derivative is the closed form
log(x) / (1 - x) (-1 at x = 1), where JAX 0.10.2 differentiates its rational
approximation (NaN on (1, 2], 0 at 1).
"""
from __future__ import annotations

import math

import numpy as np

from ... import core, lax
from ... import numpy as jnp
from ...custom_api import custom_jvp
from ...errors import ArgumentValueError
from .gamma_zeta import _inexact, _is_complex

__all__ = ["erfcx", "spence"]

_SPLIT = 2.5
_DEPTH = 80


def _erfcx_fraction(x):
    """The continued fraction for x >= _SPLIT, from depth _DEPTH down to 1."""
    dt = core.get_aval(x).dtype

    def level(i, t):
        k = lax.convert_element_type(_DEPTH - i, dt)
        return x + 0.5 * k / t
    t = lax.fori_loop(0, _DEPTH, level, x)
    return 1 / (math.sqrt(math.pi) * t)


@custom_jvp
def _erfcx(x):
    big = x >= _SPLIT
    frac = _erfcx_fraction(jnp.where(big, x, np.asarray(_SPLIT, core.get_aval(x).dtype)))
    xs = jnp.where(big, jnp.zeros_like(x), x)
    small = jnp.exp(xs * xs) * lax.erfc(xs)
    return jnp.where(big, frac, small)


def _erfcx_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    y = _erfcx(x)
    return y, t * (2 * x * y - 2 / math.sqrt(math.pi))


_erfcx.defjvp(_erfcx_jvp)


def erfcx(x):
    """The scaled complementary error function `exp(x**2) * erfc(x)`, elementwise.

    Args:
        x: real array or scalar.

    Returns:
        An array of `x`'s shape, of a floating dtype (inf where exp(x**2) overflows for
        negative x, 0 at +inf).
    """
    [x] = _inexact("erfcx", x)
    if _is_complex(x):
        raise ArgumentValueError("erfcx does not support complex-valued inputs.")
    return _erfcx(x)


def _li2_small(u):
    """Li2(u) = sum_k u^k / k^2 for 0 <= u <= 1/2 (60 terms: 2^-60 / 3600 < 1e-21)."""
    dt = core.get_aval(u).dtype

    def term(i, carry):
        p, acc = carry
        k = lax.convert_element_type(i + 1, dt)
        p = p * u
        return p, acc + p / (k * k)
    return lax.fori_loop(0, 60, term, (jnp.ones_like(u), jnp.zeros_like(u)))[1]


def _spence_unit(x):
    """spence(x) = Li2(1 - x) for 0 < x <= 1."""
    lo = x < 0.5
    direct = _li2_small(jnp.where(lo, jnp.zeros_like(x), 1 - x))
    reflected = (math.pi ** 2 / 6 - jnp.log(x) * jnp.log1p(-x)
                 - _li2_small(jnp.where(lo, x, jnp.zeros_like(x))))
    return jnp.where(lo, reflected, direct)


@custom_jvp
def _spence(x):
    dt = core.get_aval(x).dtype
    big = x > 1
    safe = jnp.where((x > 0) & jnp.isfinite(x), x, np.asarray(1, dt))
    inner = _spence_unit(jnp.where(big, 1 / safe, safe))
    out = jnp.where(big, -0.5 * jnp.log(safe) ** 2 - inner, inner)
    out = jnp.where(x == 0, np.asarray(math.pi ** 2 / 6, dt), out)
    return jnp.where((x < 0) | ~jnp.isfinite(x), np.asarray(np.nan, dt), out)


def _spence_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    dt = core.get_aval(x).dtype
    one = x == 1
    d = jnp.log(x) / jnp.where(one, np.asarray(2, dt), 1 - x)
    return _spence(x), t * jnp.where(one, np.asarray(-1, dt), d)


_spence.defjvp(_spence_jvp)


def spence(x):
    """Spence's function `integral_1^x log(t) / (1 - t) dt = Li2(1 - x)`, elementwise
    (NaN for x < 0 and at +inf, pi^2/6 at 0).

    Args:
        x: real array or scalar.

    Returns:
        An array of `x`'s shape, of a floating dtype.
    """
    [x] = _inexact("spence", x)
    if _is_complex(x):
        raise ArgumentValueError("spence does not support complex-valued inputs.")
    return _spence(x)
