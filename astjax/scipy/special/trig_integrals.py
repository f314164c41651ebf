"""The sine and cosine integrals `sici(x) = (Si(x), Ci(x))` and the Fresnel integrals
`fresnel(x) = (S(x), C(x))`, integrals of sin(pi t^2 / 2) and cos(pi t^2 / 2).

For |x| <= 4 the power series Si = sum (-1)^k x^(2k+1) / ((2k+1) (2k+1)!) and
Ci = gamma + log x + sum_(k>=1) (-1)^k x^(2k) / (2k (2k)!) (the largest term at 4 is
about 10, so about one digit is lost to cancellation). Beyond, both come from the
exponential integral of an imaginary argument, E1(i x) = -Ci(x) + i (Si(x) - pi/2),
whose continued fraction e^(-i x) / (1 + i x - 1 / (3 + i x - 4 / (5 + i x - ...)))
is evaluated by the modified Lentz method with a fixed trip count (60 levels reach
float64's precision at x = 4). Si is odd; Ci(-x) is Ci(x)'s real part (the branch's
i pi dropped), NaN at -inf. Derivatives are the closed forms sin(x) / x and cos(x) / x,
as JAX's `custom_jvp`.

Fresnel: for |x| <= 1.6 the power series in (pi/2) x^2; beyond, through the Faddeeva
function, C + i S = (1 + i)/2 (1 - e^(i pi x^2 / 2) w(sqrt(pi)/2 (1 + i) x)), whose
argument stays in the upper half-plane. The phase pi x^2 / 2 is reduced modulo 2 pi
exactly first (x = n + f with n an integer: x^2 / 2 = n^2 / 2 + n f + f^2 / 2, and
n^2 / 2 is 0 or 1/2 modulo 2), so large x keep their accuracy; the derivatives are
sin and cos of that phase.
"""
from __future__ import annotations

import math

import numpy as np

from ... import core, lax
from ... import numpy as jnp
from ...custom_api import custom_jvp
from ...errors import ArgumentValueError
from ...numpy.util import library_jit
from .faddeeva import _wofz
from .gamma_zeta import _inexact, _is_complex

__all__ = ["sici", "fresnel"]

_EULER = 0.57721566490153286061
_SERIES_MAX = 4.0
_TINY = 1e-30


def _sici_series(x):
    """(Si, Ci) for 0 < x <= 4 (28 terms: 4^56 / 56! < 1e-41)."""
    mx2 = -(x * x)
    si, ci = jnp.zeros_like(x), jnp.zeros_like(x)
    for k in range(27, -1, -1):  # Horner in -x^2, from the smallest term
        si = 1 / ((2 * k + 1) * math.factorial(2 * k + 1)) + mx2 * si
        if k >= 1:  # ci: sum_(k>=1) (-x^2)^(k-1) / (2k (2k)!)
            ci = 1 / (2 * k * math.factorial(2 * k)) + mx2 * ci
    return x * si, _EULER + jnp.log(x) + mx2 * ci


def _sici_fraction(x):
    """(Si, Ci) for x >= 4 from the continued fraction of E1(i x)."""
    cdt = np.complex128 if core.get_aval(x).dtype == np.float64 else np.complex64
    ix = lax.complex(jnp.zeros_like(x), x)
    b = 1 + ix
    d = 1 / b

    def level(i, carry):
        b, c, d, h = carry
        k = lax.convert_element_type(i + 1, cdt)
        a = -(k * k)
        b = b + 2
        d = 1 / (a * d + b)
        c = b + a / c
        return b, c, d, h * c * d
    carry = (b, jnp.full_like(b, 1 / _TINY), d, d)
    h = lax.fori_loop(0, 60, level, carry)[3]
    e1 = h * lax.complex(jnp.cos(x), -jnp.sin(x))
    return math.pi / 2 + jnp.imag(e1), -jnp.real(e1)


@custom_jvp
def _sici(x):
    dt = core.get_aval(x).dtype
    ax = jnp.abs(x)
    small = ax <= _SERIES_MAX
    finite_big = ~small & jnp.isfinite(ax)
    si_s, ci_s = _sici_series(jnp.where(small, ax, np.asarray(1, dt)))
    si_f, ci_f = _sici_fraction(jnp.where(finite_big, ax, np.asarray(2 * _SERIES_MAX, dt)))
    si = jnp.where(small, si_s, jnp.where(finite_big, si_f, np.asarray(math.pi / 2, dt)))
    ci = jnp.where(small, ci_s, jnp.where(finite_big, ci_f, np.asarray(0, dt)))
    si = jnp.where(jnp.isnan(x), x, jnp.where(jnp.signbit(x), -si, si))
    ci = jnp.where(ax == 0, np.asarray(-np.inf, dt), ci)
    ci = jnp.where(jnp.isnan(x) | (x == -np.inf), np.asarray(np.nan, dt), ci)
    return si, ci


def _sici_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    out = _sici(x)
    safe = jnp.where(x == 0, jnp.ones_like(x), x)
    sinc = jnp.where(x == 0, jnp.ones_like(x), jnp.sin(safe) / safe)
    return out, (t * sinc, t * jnp.cos(x) / x)


_sici.defjvp(_sici_jvp)


@library_jit
def sici(x):
    """The sine and cosine integrals, `Si(x) = integral_0^x sin(t) / t dt` and
    `Ci(x) = gamma + log(x) + integral_0^x (cos(t) - 1) / t dt`, elementwise.

    Args:
        x: real array or scalar.

    Returns:
        A tuple `(Si, Ci)` of arrays of `x`'s shape and floating dtype (Ci of a
        negative x is Ci(|x|); -inf at 0, NaN at -inf).

    Example:
        >>> import astjax.scipy.special as sp
        >>> sp.sici(1.0)
        (Array(0.94608307, dtype=float32), Array(0.33740392, dtype=float32))
    """
    [x] = _inexact("sici", x)
    if _is_complex(x):
        raise ArgumentValueError(
            f"Argument `x` to sici must be real-valued. Got dtype {core.get_aval(x).dtype}.")
    return _sici(x)


_FRESNEL_SERIES_MAX = 1.6


def _half_turns(x):
    """x^2 / 2 modulo 2, for x >= 0: the phase pi x^2 / 2 in units of pi."""
    n = jnp.round(x)
    f = x - n  # exact
    odd = jnp.fmod(n, 2) == 1
    r = jnp.where(odd, 0.5, 0.0) + jnp.fmod(n * f, 2.0) + f * f / 2
    return jnp.mod(r, 2.0)


def _sincos_phase(x):
    """sin and cos of pi x^2 / 2."""
    r = math.pi * _half_turns(jnp.abs(x))
    return jnp.sin(r), jnp.cos(r)


def _fresnel_series(x):
    """(S, C) for 0 <= x <= 1.6 (16 terms each: 4.03^16 / 16! < 1e-4 * 1e-10)."""
    t = -((math.pi / 2) ** 2) * x ** 4
    s, c = jnp.zeros_like(x), jnp.zeros_like(x)
    for k in range(19, -1, -1):  # Horner in -(pi/2)^2 x^4
        s = (math.pi / 2) ** 1 / (math.factorial(2 * k + 1) * (4 * k + 3)) + t * s
        c = 1 / (math.factorial(2 * k) * (4 * k + 1)) + t * c
    return x ** 3 * s, x * c


def _fresnel_far(x, sin_p, cos_p):
    """(S, C) for x > 1.6 through wofz."""
    cdt = np.complex128 if core.get_aval(x).dtype == np.float64 else np.complex64
    k = math.sqrt(math.pi) / 2
    w = _wofz(lax.complex(k * x, k * x).astype(cdt))
    e = lax.complex(cos_p, sin_p)
    v = (1 - e * w) * np.asarray(0.5 + 0.5j, cdt)
    return jnp.imag(v), jnp.real(v)


@custom_jvp
def _fresnel(x):
    dt = core.get_aval(x).dtype
    ax = jnp.abs(x)
    small = ax <= _FRESNEL_SERIES_MAX
    finite_big = ~small & jnp.isfinite(ax)
    s_s, c_s = _fresnel_series(jnp.where(small, ax, np.asarray(1, dt)))
    xf = jnp.where(finite_big, ax, np.asarray(2, dt))
    s_f, c_f = _fresnel_far(xf, *_sincos_phase(xf))
    half = np.asarray(0.5, dt)
    s = jnp.where(small, s_s, jnp.where(finite_big, s_f, half))
    c = jnp.where(small, c_s, jnp.where(finite_big, c_f, half))
    neg = jnp.signbit(x)
    s, c = jnp.where(neg, -s, s), jnp.where(neg, -c, c)
    nan = jnp.isnan(x)
    return jnp.where(nan, x, s), jnp.where(nan, x, c)


def _fresnel_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    sin_p, cos_p = _sincos_phase(x)
    return _fresnel(x), (t * sin_p, t * cos_p)


_fresnel.defjvp(_fresnel_jvp)


@library_jit
def fresnel(x):
    """The Fresnel integrals `S(x) = integral_0^x sin(pi t**2 / 2) dt` and
    `C(x) = integral_0^x cos(pi t**2 / 2) dt`, elementwise.

    Args:
        x: real array or scalar.

    Returns:
        A tuple `(S, C)` of arrays of `x`'s shape and floating dtype (+-1/2 at +-inf;
        float16 and bfloat16 computed in float32).

    Example:
        >>> import astjax.scipy.special as sp
        >>> sp.fresnel(1.0)
        (Array(0.43825915, dtype=float32), Array(0.7798934, dtype=float32))
    """
    [x] = _inexact("fresnel", x)
    if _is_complex(x):
        raise NotImplementedError(
            "fresnel of complex input is not provided, as in JAX (real input only)")
    dt = core.get_aval(x).dtype
    if dt in (np.float32, np.float64):
        return _fresnel(x)
    s, c = _fresnel(x.astype(np.float32))
    return s.astype(dt), c.astype(dt)
