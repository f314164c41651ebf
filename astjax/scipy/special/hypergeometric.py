"""The confluent hypergeometric function `hyp1f1(a, b, x)` = 1F1(a; b; x) and Gauss's
`hyp2f1(a, b, c, x)` = 2F1(a, b; c; x), for real arguments, by the methods of Pearson,
Olver & Porter (2014, arXiv:1407.7786) that JAX 0.10.2 uses, with its special cases,
stopping rules and derivatives, so that the values agree with JAX's where JAX's are
inaccurate too.

1F1: its Taylor series for |x| < 100, Kummer's asymptotic expansion
Gamma(b) / Gamma(a) e^x x^(a - b) sum_k (b - a)_k (1 - a)_k / (k! x^k) beyond (NaN for
x <= -100 unless a - b is a whole number, as JAX's), each summed until a term falls
below machine epsilon relative to the sum or 250 terms. 2F1: the Taylor series; a
terminating polynomial when a or b is a non-positive whole number; near x = 1 (x > 0.9)
with c - a - b whole, the digamma expansions of Abramowitz & Stegun 15.3.10-12; Euler's
transformation (1 - x)^(c - a - b) 2F1(c - a, c - b; c; x) when c - a - b <= -1; Gauss's
sum at x = 1; inf for x > 1 and at the poles c = 0, -1, -2, .... Neither series is
reliable where its terms cancel (large negative x in float32 for 1F1, x near -1 or
below for 2F1): there astjax gives JAX's (inaccurate) value, not SciPy's.

Each element iterates on its own (`masked_while`: what `jnp.vectorize` and `vmap` make
of JAX's per-element `while_loop`), so the loops stage, batch and compile. Derivatives
are JAX's `custom_jvp` rules: in x, (a b / c) 2F1(a + 1, b + 1; c + 1; x) (and
(a / b) 1F1(a + 1; b + 1; x)); in a, b and c, the series of the parameter derivatives
of the terms (digamma differences), summed by the same rule.
"""
from __future__ import annotations

import numpy as np

from ... import core, dtypes, lax
from ... import numpy as jnp
from ...custom_api import custom_jvp
from ...errors import ArgumentTypeError, ArgumentValueError
from ...numpy.util import library_jit
from .gamma_zeta import _inexact, _is_complex, gammasgn, masked_while

__all__ = ["hyp1f1", "hyp2f1"]

_MAX_TERMS = 250


def _eps(x):
    return float(dtypes.finfo(core.get_aval(x).dtype).eps)


def _c(x, v):
    return np.asarray(v, core.get_aval(x).dtype)


def _real_gamma(x):
    return gammasgn(x) * jnp.exp(lax.lgamma(x))


def _series(mask, small, step, first, total, weight=None):
    """`total` + sum_(k >= 1) t_k (times weight(k) if given) where `mask`, with t_1 =
    `first` and t_(k+1) = t_k * step(k) (k as a float): a term is added while k < 250
    and `small(t_k, sum so far)` is False -- JAX's stopping rule, so the same terms are
    summed."""
    dt = core.get_aval(first).dtype

    def active(i, s):  # i = k - 1
        return mask & (i + 1 < _MAX_TERMS) & ~small(s[1], s[0])

    def add(i, s):
        acc, term = s
        k = lax.convert_element_type(i + 1, dt)
        return acc + (term if weight is None else term * weight(k)), term * step(k)
    return masked_while(active, add, (jnp.broadcast_to(total, jnp.shape(first)), first))[0]


def _relative(eps):
    """The stopping rule |term| / |sum| <= eps (NaN ratios stop too)."""
    return lambda term, acc: ~(jnp.abs(term) / jnp.abs(acc) > eps)


def _off_whole(v, tol):
    """v is farther than tol from a whole number (False for NaN)."""
    return jnp.abs(v - jnp.round(v)) >= tol


def _near_whole(v, tol):
    """v is within tol of a whole number (False for NaN)."""
    return jnp.abs(v - jnp.round(v)) < tol

# ------------------------------------------------------------------------- 1F1


def _hyp1f1_taylor(a, b, x, mask):
    """sum (a)_k / (b)_k x^k / k!."""
    return _series(mask, _relative(_eps(x)), lambda k: (a + k) / (b + k) * x / (k + 1),
                   a / b * x, jnp.ones_like(x))


def _hyp1f1_kummer(a, b, x, mask):
    """Kummer's large-x expansion (the e^(-x) part of the full one is left out, as JAX's)."""
    rest = _series(mask, _relative(_eps(x)), lambda k: (b - a + k) * (1 - a + k) / (k + 1) / x,
                   (b - a) * (1 - a) / x, jnp.ones_like(x))
    return _real_gamma(b) / _real_gamma(a) * jnp.exp(x) * x ** (a - b) * rest


@custom_jvp
def _hyp1f1(a, b, x):
    small = jnp.abs(x) < 100
    out = jnp.where(small, _hyp1f1_taylor(a, b, x, small), _hyp1f1_kummer(a, b, x, ~small))
    out = jnp.where((b == 0) & (a != 0), _c(x, np.inf), out)
    out = jnp.where((a == b) & (a != 0), jnp.exp(x), out)
    return jnp.where(a == 0, _c(x, 1), out)


def _param_derivative(first, ratio, weight):
    """sum_(k >= 1) t_k weight(k) for the Taylor terms t_1 = `first`, t_(k+1) = t_k *
    ratio(k): the series' derivative in a parameter (JAX's stopping rule)."""
    return _series(True, _relative(_eps(first)), ratio, first, jnp.zeros_like(first), weight)


def _hyp1f1_param_derivative(a, b, x, weight):
    return _param_derivative(a / b * x, lambda k: (a + k) / (b + k) * x / (k + 1), weight)


_hyp1f1.defjvps(
    lambda ta, out, a, b, x: ta * _hyp1f1_param_derivative(
        a, b, x, lambda k: lax.digamma(a + k) - lax.digamma(a)),
    lambda tb, out, a, b, x: tb * _hyp1f1_param_derivative(
        a, b, x, lambda k: lax.digamma(b) - lax.digamma(b + k)),
    lambda tx, out, a, b, x: tx * (a / b * _hyp1f1(a + 1, b + 1, x)))


@library_jit
def hyp1f1(a, b, x):
    """The confluent hypergeometric function 1F1(a; b; x) = sum_k (a)_k / (b)_k x^k / k!,
    elementwise (Kummer's function M(a, b, x)).

    As JAX 0.10.2: 1 where a == 0 (also for b == 0, where SciPy has NaN), e^x where
    a == b, inf where b == 0; the Taylor series for |x| < 100 and Kummer's asymptotic
    expansion beyond, so values that are large, or small by cancellation (x very
    negative), are inaccurate in float32 (hyp1f1(2.5, 0.7, -10) is -6.6e-3 there, as
    JAX's; SciPy's 5.5e-3) -- enable float64; x <= -100 is NaN unless a - b is whole.

    Args:
        a, b, x: real arrays or scalars, broadcast together.

    Returns:
        An array of the broadcast shape, of a floating dtype; differentiable in all three.
        Complex input raises ValueError (as JAX's).

    Example:
        >>> import astjax.scipy.special as sp
        >>> sp.hyp1f1(1.0, 2.0, 0.5)
        Array(1.2974426, dtype=float32)
    """
    a, b, x = _inexact("hyp1f1", a, b, x)
    if _is_complex(x):
        raise ArgumentValueError("hyp1f1 does not support complex-valued inputs.")
    return _hyp1f1(*jnp.broadcast_arrays(a, b, x))

# ------------------------------------------------------------------------- 2F1


def _hyp2f1_taylor(a, b, c, x, mask):
    """sum (a)_k (b)_k / (c)_k x^k / k!, stopping at |term| <= eps |sum|."""
    eps = _eps(x)
    return _series(mask, lambda term, acc: ~(jnp.abs(term) > eps * jnp.abs(acc)),
                   lambda k: (a + k - 1) * (b + k - 1) / (c + k - 1) / k * x,
                   jnp.ones_like(x), jnp.zeros_like(x))


def _hyp2f1_polynomial(a, b, c, x, mask):
    """The terminating series when a (or b) is a non-positive whole number: the one of
    larger magnitude bounds the sum, unless c is a pole between them."""
    tol = 50 * _eps(x)
    c_pole_above_b = (c % 1 == 0) & (c <= 0) & (c > b)
    swap = (b < a) & _near_whole(b, tol) & ~c_pole_above_b
    a, b = jnp.where(swap, b, a), jnp.where(swap, a, b)
    n = jnp.abs(a)  # the loop runs i = 1, 2, ... while i < n + 1, as a float bound

    def active(k, s):
        return mask & (lax.convert_element_type(k + 1, core.get_aval(x).dtype) < n + 1)

    def add(k, s):
        total, term = s
        i = lax.convert_element_type(k + 1, core.get_aval(x).dtype)
        term = term * (-(n - i + 1) / (c + i - 1) * (b + i - 1) / i * x)
        return total + term, term
    return masked_while(active, add, (jnp.ones_like(x), jnp.ones_like(x)))[0]


def _hyp2f1_digamma(a, b, c, x, mask):
    """2F1 near x = 1 when c - a - b = m is (nearly) whole: A&S 15.3.10 (m = 0) and
    15.3.11-12 (m > 0, m < 0), written with e = |m| and the shifts d1, d2."""
    dt = core.get_aval(x).dtype
    eps = _eps(x)
    zero = _c(x, 0)
    d = c - a - b
    s = 1 - x
    rd = jnp.round(d)
    up = rd >= 0
    e = jnp.where(up, d, -d)
    d1 = jnp.where(up, d, zero)
    d2 = jnp.where(up, zero, d)
    m = jnp.where(up, rd, -rd).astype(np.int32)
    log_s = jnp.log(s)
    psi = lax.digamma
    y0 = (psi(_c(x, 1)) + psi(1 + e) - psi(a + d1) - psi(b + d1) - log_s) / _real_gamma(e + 1)
    p0 = (a + d1) * (b + d1) * s / _real_gamma(e + 2)

    def active(k, st):
        return mask & (k < _MAX_TERMS - 1) & (jnp.abs(st[1]) >= eps * jnp.abs(st[2]))

    def add(k, st):
        p, q, y = st
        t = lax.convert_element_type(k + 1, dt)
        r = psi(1 + t) + psi(1 + t + e) - psi(a + t + d1) - psi(b + t + d1) - log_s
        q = p * r
        p = p * (s * (a + t + d1) / (t + 1)) * ((b + t + d1) / (t + 1 + e))
        return p, q, y + q
    _, _, y = masked_while(active, add, (p0, y0, y0))

    # the finite sum of the m > 0 / m < 0 formulas, m - 1 terms
    def fin_add(k, st):
        p, y1 = st
        t = lax.convert_element_type(k, dt)
        p = p * (s * (a + t + d2) * (b + t + d2) / (1 - e + t)) / (t + 1)
        return p, y1 + p
    _, y1 = masked_while(lambda k, st: mask & (k + 1 < m), fin_add,
                         (jnp.ones_like(x), jnp.ones_like(x)))
    gc = _real_gamma(c)
    y1 = y1 * (_real_gamma(e) * gc / (_real_gamma(a + d1) * _real_gamma(b + d1)))
    ym = y * (gc / (_real_gamma(a + d2) * _real_gamma(b + d2)))
    ym = jnp.where((m & 1) != 0, -ym, ym)
    q = s ** rd
    whole = jnp.where(rd > 0, ym * q + y1, ym + y1 * q)
    return jnp.where(rd == 0, y * gc / (_real_gamma(a) * _real_gamma(b)), whole)


def _hyp2f1_core(a, b, c, x, mask):
    """2F1 away from the special cases: polynomial, digamma expansion or Taylor series."""
    tol = 50 * _eps(x)
    terminating = (((a <= 0) & _near_whole(a, tol)) | ((b <= 0) & _near_whole(b, tol)))
    near_one = (x > 0.9) & ~terminating
    digamma_case = near_one & ~_off_whole(c - a - b, tol)
    taylor_case = ~terminating & ~digamma_case
    out = _hyp2f1_taylor(a, b, c, x, mask & taylor_case)
    out = jnp.where(digamma_case, _hyp2f1_digamma(a, b, c, x, mask & digamma_case), out)
    return jnp.where(terminating, _hyp2f1_polynomial(a, b, c, x, mask & terminating), out)


@custom_jvp
def _hyp2f1(a, b, c, x):
    tol = 50 * _eps(x)
    d = c - a - b
    s = 1 - x
    inf = _c(x, np.inf)
    # (condition, value) in priority order: the first that holds decides
    one = (x == 0) | (((a == 0) | (b == 0)) & (c != 0))
    pole = (c == 0) | ((c < 0) & (c % 1 == 0))
    euler = (d <= -1) & ~(_off_whole(d, tol) & (s < 0))
    taken = one | pole
    euler_m = ~taken & euler
    taken = taken | euler
    cases = [((d <= 0) & (x == 1), lambda: inf), ((x < 1) & (b == c), lambda: s ** (-a)),
             ((x < 1) & (a == c), lambda: s ** (-b)), (x > 1, lambda: inf),
             (x == 1, lambda: _real_gamma(c) * _real_gamma(d)
              / (_real_gamma(c - a) * _real_gamma(c - b)))]
    conds, vals = [], []
    for cond, val in cases:
        conds.append(~taken & cond)
        vals.append(val)
        taken = taken | cond
    out = _hyp2f1_core(a, b, c, x, ~taken)
    for cond, val in reversed(list(zip(conds, vals))):
        out = jnp.where(cond, val(), out)
    out = jnp.where(euler_m, s ** d * _hyp2f1_core(c - a, c - b, c, x, euler_m), out)
    out = jnp.where(pole & ~one, inf, out)
    return jnp.where(one, _c(x, 1), out)


def _hyp2f1_param_derivative(a, b, c, x, weight):
    return _param_derivative(a * b / c * x,
                             lambda k: (a + k) * (b + k) / (c + k) / (k + 1) * x, weight)


_hyp2f1.defjvps(
    lambda ta, out, a, b, c, x: ta * _hyp2f1_param_derivative(
        a, b, c, x, lambda k: lax.digamma(a + k) - lax.digamma(a)),
    lambda tb, out, a, b, c, x: tb * _hyp2f1_param_derivative(
        a, b, c, x, lambda k: lax.digamma(b + k) - lax.digamma(b)),
    lambda tc, out, a, b, c, x: tc * _hyp2f1_param_derivative(
        a, b, c, x, lambda k: lax.digamma(c) - lax.digamma(c + k)),
    lambda tx, out, a, b, c, x: tx * (a * b / c * _hyp2f1(a + 1, b + 1, c + 1, x)))


@library_jit
def hyp2f1(a, b, c, x):
    """Gauss's hypergeometric function 2F1(a, b; c; x) = sum_k (a)_k (b)_k / (c)_k
    x^k / k!, elementwise, for real arguments and x <= 1.

    As JAX 0.10.2: 1 where x == 0 (or a or b is 0 and c is not), inf at the poles
    c = 0, -1, -2, ..., for x > 1 and at x == 1 when c - a - b <= 0; Gauss's sum
    Gamma(c) Gamma(c - a - b) / (Gamma(c - a) Gamma(c - b)) at x == 1. Below x = -1 the
    Taylor series diverges and, as JAX's, the result is meaningless (hyp2f1(2, 1, 1.5,
    -2) is inf in float32, -8.4e66 in float64; SciPy's 0.2447); near x = -1 the terms
    cancel and float32 loses digits: enable float64.

    Args:
        a, b, c, x: real arrays or scalars, broadcast together.

    Returns:
        An array of the broadcast shape, of a floating dtype; differentiable in all four.
        Complex input raises TypeError (as JAX's).

    Example:
        >>> import astjax.scipy.special as sp
        >>> sp.hyp2f1(1.0, 2.0, 3.0, 0.5)
        Array(1.5451772, dtype=float32)
    """
    a, b, c, x = _inexact("hyp2f1", a, b, c, x)
    if _is_complex(x):  # a TypeError, as JAX's (its `c % 1` refuses complex)
        raise ArgumentTypeError("hyp2f1 does not support complex-valued inputs.")
    return _hyp2f1(*jnp.broadcast_arrays(a, b, c, x))
