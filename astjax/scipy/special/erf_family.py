"""The scaled complementary error function `erfcx(x) = exp(x**2) erfc(x)`, Dawson's
integral `dawsn(x) = exp(-x**2) integral_0^x exp(t**2) dt`, and Spence's function (the
dilogarithm `spence(x) = Li2(1 - x)`).

Below x = 2.5 the product itself is accurate (erfc is computed to full relative
precision and exp(x**2) loses only about x**2 ulps); above, where erfc underflows, the
continued fraction erfcx(x) = 1 / (sqrt(pi) (x + (1/2) / (x + 1 / (x + (3/2) / ...))))
evaluated backwards from a fixed depth (`lax.fori_loop`). The derivative is the
closed form 2 x erfcx(x) - 2 / sqrt(pi), as JAX's `custom_jvp`.

`dawsn` is its Taylor series below |x| = 1, the asymptotic series
1 / (2x) sum_k (2k - 1)!! / (2 x^2)^k above |x| = 10 (5 in float32), and Rybicki's exponentially
convergent sampling sum (step h = 0.2, error about exp(-(pi / 2h)^2) ~ 1e-27) between;
its derivative is the closed form 1 - 2 x dawsn(x), as JAX's.

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
from .faddeeva import _wofz
from .gamma_zeta import _inexact, _is_complex, _real_arg

__all__ = ["erfcx", "dawsn", "spence"]

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
        x: real or complex array or scalar (complex: `wofz(1j * x)`).

    Returns:
        An array of `x`'s shape, of an inexact dtype (inf where exp(x**2) overflows for
        negative x, 0 at +inf).
    """
    [x] = _inexact("erfcx", x)
    if _is_complex(x):
        return _wofz(1j * x)
    return _erfcx(x)


_TAYLOR_MAX, _TAYLOR_TERMS = 1.0, 24  # the last term at |x| = 1: 2^23 / 47!! < 1e-22
_RYBICKI_H = 0.2
_RYBICKI_TERMS = 34  # exp(-((2 * 34 - 1) h)^2) < 1e-78


def _dawsn_taylor(x):
    """x sum_k (-2 x^2)^k / (2k + 1)!! for |x| <= 1."""
    x2 = x * x
    acc = jnp.zeros_like(x)
    for k in range(_TAYLOR_TERMS - 1, -1, -1):  # Horner in -2 x^2 / (2k + 3), innermost first
        acc = 1 - 2 * x2 * acc / (2 * k + 3)
    return x * acc


def _dawsn_asymptotic(x):
    """1 / (2x) sum_k (2k - 1)!! / (2 x^2)^k for |x| >= 10 (5 in float32; 20 terms)."""
    u = 1 / (2 * x * x)
    acc = jnp.ones_like(x)
    for k in range(19, 0, -1):
        acc = 1 + (2 * k - 1) * u * acc
    return acc / (2 * x)


def _dawsn_rybicki(x):
    """Rybicki's sum for 1 <= x <= 10: with n0 the even integer nearest x / h and
    y = x - n0 h, dawsn(x) = exp(-y^2) / sqrt(pi) sum_(n odd) exp(-(n h)^2)
    (e^(2 y n h) / (n0 + n) + e^(-2 y n h) / (n0 - n))."""
    dt = core.get_aval(x).dtype
    h = _RYBICKI_H
    n0 = 2 * jnp.round(x / (2 * h))
    y = x - n0 * h
    e1, e2 = jnp.exp(2 * h * y), jnp.exp(4 * h * y)
    acc = jnp.zeros_like(x)
    for i in range(_RYBICKI_TERMS):
        n = 2 * i + 1
        c = np.asarray(math.exp(-(n * h) ** 2), dt)
        acc = acc + c * (e1 / (n0 + n) + 1 / ((n0 - n) * e1))
        e1 = e1 * e2
    return jnp.exp(-y * y) * acc / math.sqrt(math.pi)


@custom_jvp
def _dawsn(x):
    dt = core.get_aval(x).dtype
    ax = jnp.abs(x)
    # the asymptotic series' smallest term: 2e-11 at |x| = 5 (float32's), 3e-23 at 10
    far_min = 10 if dt == np.float64 else 5
    small, big = ax <= _TAYLOR_MAX, ax >= far_min
    one = np.asarray(1, dt)
    mid = _dawsn_rybicki(jnp.where(small | big, one, ax))
    # x = inf: the asymptotic series' 1 / (2x) is the limit +-0
    far = _dawsn_asymptotic(jnp.where(big, ax, np.asarray(far_min, dt)))
    far = jnp.where(jnp.isinf(ax), np.asarray(0, dt), far)
    out = jnp.where(small, _dawsn_taylor(jnp.where(small, ax, one)),
                    jnp.where(big, far, mid))
    # odd: the sign of x, including -0 (NaN stays NaN)
    return jnp.where(jnp.signbit(x), -out, out)


def _dawsn_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    y = _dawsn(x)
    return y, t * (1 - 2 * x * y)


_dawsn.defjvp(_dawsn_jvp)


def dawsn(x):
    """Dawson's integral `exp(-x**2) * integral_0^x exp(t**2) dt`, elementwise.

    Args:
        x: real array or scalar.

    Returns:
        An array of `x`'s shape, of a floating dtype (+-0 at +-inf; float16 and
        bfloat16 computed in float32).

    Example:
        >>> import astjax.scipy.special as sp
        >>> sp.dawsn(1.0)
        Array(0.5380795, dtype=float32)
    """
    x = _real_arg("dawsn", x)
    dt = core.get_aval(x).dtype
    if dt in (np.float32, np.float64):
        return _dawsn(x)
    return _dawsn(x.astype(np.float32)).astype(dt)


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
    x = _real_arg("spence", x)
    return _spence(x)
