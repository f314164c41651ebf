"""Exponential integrals: `expn` (E_n(x) = integral_1^inf e^(-x t) / t^n dt), `exp1`
(E_1) and `expi` (Ei(x) = -E_1(-x), the principal value of integral_-inf^x e^t / t dt).

E_n for x <= 1 is its power series around 0 (the k = n - 1 term carries the log and
digamma(n)); for x > 1 (and very large n) the continued fraction, evaluated by the
modified Lentz method. Ei for x > 0 is its series gamma + log x + sum x^k / (k k!) up to
x = 40 and the asymptotic e^x / x sum k! / x^k beyond. Loops have fixed trip counts
(`lax.fori_loop`), so all of it stages, batches and compiles; derivatives are the
closed forms as `custom_jvp`s (dE_n/dx = -E_(n-1), dEi/dx = e^x / x), as in JAX.

Special values follow JAX 0.10.2 (NaN for x < 0 or n < 0 in `expn`, NaN at +inf and at
0 for `expi`), except E_n(0) for n >= 2, which is 1 / (n - 1) as in SciPy (JAX 0.10.2
returns 1 / n there).
"""
from __future__ import annotations

import numpy as np

from ... import core, lax
from ... import numpy as jnp
from ...custom_api import custom_jvp
from ...errors import ArgumentValueError
from ...numpy.util import library_jit
from .gamma_zeta import _inexact, _is_complex

__all__ = ["expn", "exp1", "expi"]

_EULER = 0.57721566490153286061
_TINY = 1e-30


def _c(x, v):
    return np.asarray(v, core.get_aval(x).dtype)


def _loop(n, body, carry):
    return lax.fori_loop(0, n, lambda i, c: body(i + 1, c), carry)


def _expn_series(n, x):
    """E_n(x) for 0 < x <= 1 and integer n >= 1 (NaN for other n)."""
    nm1 = n - 1
    safe_nm1 = jnp.where(nm1 == 0, _c(x, 1), nm1)
    log_x = jnp.log(x)
    start = jnp.where(nm1 == 0, -log_x - _EULER, 1 / safe_nm1)
    psi = lax.digamma(jnp.maximum(n, _c(n, 1)))

    def term(i, carry):
        fact, acc = carry
        fi = lax.convert_element_type(i, core.get_aval(x).dtype)
        fact = fact * (-x) / fi
        d = jnp.where(fi == nm1, fact * (psi - log_x), -fact / (fi - nm1))
        return fact, acc + d
    _, acc = _loop(40, term, (jnp.ones_like(x), start))
    integral = (n == jnp.floor(n)) & (n >= 1)
    return jnp.where(integral, acc, _c(x, np.nan))


def _expn_fraction(n, x):
    """E_n(x) = e^-x / (x + n - 1 n / (x + n + 2 - 2 (n + 1) / (x + n + 4 - ...)))."""
    nm1 = n - 1
    b0 = x + n
    d0 = 1 / jnp.where(b0 == 0, _c(x, _TINY), b0)

    def step(i, carry):
        b, c, d, h = carry
        fi = lax.convert_element_type(i, core.get_aval(x).dtype)
        an = -fi * (nm1 + fi)
        b = b + 2
        d = an * d + b
        d = 1 / jnp.where(jnp.abs(d) < _TINY, _c(x, _TINY), d)
        c = b + an / c
        c = jnp.where(jnp.abs(c) < _TINY, _c(x, _TINY), c)
        return b, c, d, h * c * d
    iters = 120 if core.get_aval(x).dtype == np.float64 else 60
    _, _, _, h = _loop(iters, step, (b0, jnp.full_like(x, 1 / _TINY), d0, d0))
    return h * jnp.exp(-x)


def _expn(n, x):
    zero = _c(x, 0)
    # n and x where each branch is evaluated: away from its invalid region, so the
    # branches not taken stay finite (and NaN-free under vmap / jvp)
    x_ser = jnp.clip(jnp.where(x > zero, x, _c(x, 0.5)), None, _c(x, 1))
    out = _expn_series(n, x_ser)
    out = jnp.where((n < 0) | (x < zero), _c(x, np.nan), out)
    out = jnp.where((x == zero) & (n < 2), _c(x, np.inf), out)
    out = jnp.where((x == zero) & (n >= 2), 1 / jnp.maximum(n - 1, _c(n, 1)), out)
    out = jnp.where((n == 0) & (x >= zero), jnp.exp(-x) / x, out)
    use_cf = (x > 1) | (n >= 5000)
    x_cf = jnp.where(use_cf, x, _c(x, 2))
    out = jnp.where(use_cf, _expn_fraction(n, x_cf), out)
    return jnp.where((x == np.inf) | jnp.isnan(x) | jnp.isnan(n), _c(x, np.nan), out)


@custom_jvp
def _expn_d(n, x):
    return _expn(n, x)


def _expn_jvp(primals, tangents):
    n, x = primals
    return _expn_d(n, x), -tangents[1] * _expn_d(n - 1, x)


_expn_d.defjvp(_expn_jvp)


@library_jit
def expn(n, x):
    """The generalized exponential integral E_n(x), elementwise.

    Args:
        n: real array or scalar, the (whole-number) order.
        x: real array or scalar.

    Returns:
        An array of the broadcast shape, of a floating dtype; dE_n/dx = -E_(n-1).
    """
    n, x = _inexact("expn", n, x)
    if _is_complex(x):
        raise ArgumentValueError("expn does not support complex-valued inputs.")
    n, x = jnp.broadcast_arrays(n, x)
    return _expn_d(n, x)


@library_jit
def exp1(x):
    """The exponential integral E_1(x) = integral_x^inf e^-t / t dt, elementwise.

    Args:
        x: real array or scalar.

    Returns:
        An array of `x`'s shape, of a floating dtype (NaN for x < 0, inf at 0).
    """
    [x] = _inexact("exp1", x)
    if _is_complex(x):
        raise ArgumentValueError("exp1 does not support complex-valued inputs.")
    return _expn_d(jnp.ones_like(x), x)


def _ei_positive(x):
    """Ei(x) for x > 0: the series below 40, the asymptotic expansion above."""
    dt = core.get_aval(x).dtype
    xs = jnp.minimum(x, _c(x, 40))

    def s_term(k, carry):
        t, acc = carry
        fk = lax.convert_element_type(k, dt)
        t = t * xs / fk  # x^k / k!
        return t, acc + t / fk
    _, series = _loop(160, s_term, (jnp.ones_like(x), jnp.zeros_like(x)))
    series = _EULER + jnp.log(xs) + series
    xl = jnp.maximum(x, _c(x, 40))

    def a_term(k, carry):
        t, acc = carry
        t = t * lax.convert_element_type(k, dt) / xl  # k! / x^k
        return t, acc + t
    _, asym = _loop(40, a_term, (jnp.ones_like(x), jnp.ones_like(x)))
    large = jnp.exp(xl - jnp.log(xl)) * asym
    return jnp.where(x <= 40, series, large)


@custom_jvp
def _expi(x):
    zero = _c(x, 0)
    pos = _ei_positive(jnp.where(x > zero, x, _c(x, 1)))
    neg = -_expn(jnp.ones_like(x), jnp.where(x < zero, -x, _c(x, 1)))
    out = jnp.where(x > zero, pos, neg)
    return jnp.where((x == zero) | jnp.isinf(x) | jnp.isnan(x), _c(x, np.nan), out)


def _expi_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _expi(x), t * jnp.exp(x) / x


_expi.defjvp(_expi_jvp)


@library_jit
def expi(x):
    """The exponential integral Ei(x), elementwise (the principal value for x > 0,
    -E_1(-x) for x < 0; NaN at 0 and at +-inf, as JAX 0.10.2).

    Args:
        x: real array or scalar.

    Returns:
        An array of `x`'s shape, of a floating dtype; dEi/dx = e^x / x.
    """
    [x] = _inexact("expi", x)
    if _is_complex(x):
        raise ArgumentValueError("expi does not support complex-valued inputs.")
    return _expi(x)

