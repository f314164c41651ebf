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

Owen's T function `owens_t(h, a)` = (1 / 2 pi) integral_0^a exp(-h^2 (1 + t^2) / 2) /
(1 + t^2) dt is Patefield & Tandy's method T5, as JAX 0.10.2 computes it everywhere:
with t = a u the integrand is even in u, so the 26-point Gauss-Legendre rule on [-1, 1]
folds into 13 nodes u_i^2 on (0, 1]; |a| > 1 goes through T(h, a) = (Phi(h) + Phi(a h))
/ 2 - Phi(h) Phi(a h) - T(a h, 1 / a) (written with erf / erfc), h = 0 and |a| = 1 are
exact. The derivatives are the closed forms of JAX's `custom_jvp`.

`ndtri_cephes`, the normal quantile behind `ndtri` and `stats.norm.ppf`, is Cephes'
pair of rational approximations, in JAX's operation order (the same bits); its
derivative is that of the approximation, as JAX's.
"""
from __future__ import annotations

import math

import numpy as np

from ... import core, lax
from ... import numpy as jnp
from ...custom_api import custom_jvp
from ...errors import ArgumentValueError, DTypeError
from ...numpy.util import library_jit
from .faddeeva import _wofz
from .gamma_zeta import _inexact, _is_complex, _real_arg

__all__ = ["erfcx", "dawsn", "spence", "owens_t", "ndtri_cephes"]

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


@library_jit
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


@library_jit   # (one executable per signature when called eagerly; the same bits)
def spence(x):
    """Spence's function `integral_1^x log(t) / (1 - t) dt = Li2(1 - x)`, elementwise
    (NaN for x < 0 and at +inf, pi^2/6 at 0).

    Args:
        x: real array or scalar.

    Returns:
        An array of `x`'s shape, of a floating dtype.
    """
    x = float32_or_64(jnp.asarray(x))
    return _spence(x)


def float32_or_64(x):
    """`x` itself if it is float32 or float64, else JAX's TypeError (ndtr, ndtri, spence:
    no promotion of integers or narrower floats)."""
    dt = core.get_aval(x).dtype
    if dt not in (np.float32, np.float64):
        raise DTypeError(f"x.dtype={np.dtype(dt)} is not supported, see docstring for "
                         "supported types.", hint="convert x to float32 or float64")
    return x


# ------------------------------------------------------------------------- Owen's T

_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(26)
# float64 NumPy arrays on purpose: JAX's tables are, so with x64 on a float32 input
# gives a float64 result there too
_OWENS_NODES = _GL_NODES[13:] ** 2
_OWENS_WEIGHTS = _GL_WEIGHTS[13:] / (2 * math.pi)


def _owens_t5(h, a):
    """(a / 2 pi) integral_0^1 exp(-h^2 (1 + a^2 u^2) / 2) / (1 + a^2 u^2) du by the
    folded 26-point rule, for 0 <= a <= 1."""
    r = (a * a)[..., None] * _OWENS_NODES
    f = jnp.exp(-0.5 * (h * h)[..., None] * (1.0 + r)) / (1.0 + r)
    return a * (f @ _OWENS_WEIGHTS)


@custom_jvp
def _owens_t(h, a):
    h, abs_a = jnp.abs(h), jnp.abs(a)
    rt2 = np.asarray(math.sqrt(2), core.get_aval(h).dtype)
    small_a = abs_a <= 1.0
    a1 = jnp.where(small_a, abs_a, 1 / abs_a)
    h1 = jnp.where(small_a, h, abs_a * h)
    t = _owens_t5(h1, a1)
    t = jnp.where(h1 == 0.0, jnp.arctan(a1) / (2 * math.pi), t)
    t = jnp.where(a1 == 1.0, 0.125 * lax.erfc(-h1 / rt2) * lax.erfc(h1 / rt2), t)
    hn = h / rt2   # (scaled once, then by |a|: JAX's rounding)
    eh, eah = lax.erfc(hn), lax.erfc(abs_a * hn)
    reflected = jnp.where(abs_a * h <= 0.67,
                          0.25 - 0.25 * lax.erf(hn) * lax.erf(abs_a * hn) - t,
                          0.25 * (eh + eah - eh * eah) - t)
    t = lax.sign(a) * jnp.where(abs_a > 1.0, reflected, t)
    return jnp.where(jnp.isnan(a) | jnp.isnan(h), jnp.full_like(t, np.nan), t)


def _owens_t_jvp(primals, tangents):
    (h, a), (th, ta) = primals, tangents
    out = _owens_t(h, a)
    dt = core.get_aval(h).dtype
    d_h = (-jnp.exp(-0.5 * (h * h)) * lax.erf(a * h / np.asarray(math.sqrt(2), dt))
           / (2.0 * np.asarray(math.sqrt(2 * math.pi), dt)))
    d_a = jnp.exp(-0.5 * (a * a + 1.0) * (h * h)) / (2.0 * math.pi * (a * a + 1.0))
    return out, (d_h * th + d_a * ta).astype(core.get_aval(out).dtype)


_owens_t.defjvp(_owens_t_jvp)


_owens_t_compiled = library_jit(lambda h, a: _owens_t(h, a))


def owens_t(h, a):
    """Owen's T function, `(1 / 2 pi) integral_0^a exp(-h^2 (1 + t^2) / 2) / (1 + t^2) dt`,
    elementwise (odd in a, even in h).

    Computed everywhere by the 13-node Gaussian rule (Patefield & Tandy's T5), as JAX
    0.10.2 does: about 1e-8 relative in float64 for moderate h, less for large |h a|.

    Args:
        h, a: real arrays or scalars, broadcast together.

    Returns:
        An array of the broadcast shape, of a floating dtype (float64 when x64 is on,
        whatever the inputs, as JAX's); differentiable in both. Complex input raises
        ValueError (JAX computes something from the moduli there).

    Example:
        >>> import astjax.scipy.special as sp
        >>> sp.owens_t(0.5, 0.3)
        Array(0.04078671, dtype=float32)
    """
    h, a = _inexact("owens_t", h, a)
    if _is_complex(h):
        raise ArgumentValueError("owens_t does not support complex-valued inputs.")
    h, a = jnp.broadcast_arrays(h, a)
    if core.current_builder() is None and core.get_aval(h).dtype.itemsize < 4:
        # JAX's is not jitted: eagerly it runs op by op, each 16-bit step rounded, where
        # one compiled program keeps excess precision (float32 and float64: the same bits)
        return _owens_t(h, a)
    return _owens_t_compiled(h, a)

# ------------------------------------------------------------------ the normal quantile
# Cephes' ndtri rational approximations (highest power first; the denominators' leading
# 1 written out), as JAX 0.10.2 evaluates them
_NDTRI_P0 = [-5.99633501014107895267E1, 9.80010754185999661536E1, -5.66762857469070293439E1,
             1.39312609387279679503E1, -1.23916583867381258016E0]
_NDTRI_Q0 = [1.0, 1.95448858338141759834E0, 4.67627912898881538453E0, 8.63602421390890590575E1,
             -2.25462687854119370527E2, 2.00260212380060660359E2, -8.20372256168333339912E1,
             1.59056225126211695515E1, -1.18331621121330003142E0]
_NDTRI_P1 = [4.05544892305962419923E0, 3.15251094599893866154E1, 5.71628192246421288162E1,
             4.40805073893200834700E1, 1.46849561928858024014E1, 2.18663306850790267539E0,
             -1.40256079171354495875E-1, -3.50424626827848203418E-2, -8.57456785154685413611E-4]
_NDTRI_Q1 = [1.0, 1.57799883256466749731E1, 4.53907635128879210584E1, 4.13172038254672030440E1,
             1.50425385692907503408E1, 2.50464946208309415979E0, -1.42182922854787788574E-1,
             -3.80806407691578277194E-2, -9.33259480895457427372E-4]
_NDTRI_P2 = [3.23774891776946035970E0, 6.91522889068984211695E0, 3.93881025292474443415E0,
             1.33303460815807542389E0, 2.01485389549179081538E-1, 1.23716634817820021358E-2,
             3.01581553508235416007E-4, 2.65806974686737550832E-6, 6.23974539184983293730E-9]
_NDTRI_Q2 = [1.0, 6.02427039364742014255E0, 3.67983563856160859403E0, 1.37702099489081330271E0,
             2.16236993594496635890E-1, 1.34204006088543189037E-2, 3.28014464682127739104E-4,
             2.89247864745380683936E-6, 6.79019408009981274425E-9]


def ndtri_cephes(p):
    """The standard normal quantile of float32 / float64 `p` by Cephes' method, in JAX's
    operation order: for p (or 1 - p, the smaller) above exp(-2), w + w^3 P0(w^2) /
    Q0(w^2) around w = p - 1/2, times -sqrt(2 pi); below, with z = sqrt(-2 log p),
    z - log(z) / z - P(1/z) / Q(1/z) / z (P1 / Q1, or P2 / Q2 for z >= 8); the sign by
    the side of 1 - exp(-2); -inf at 0, inf at 1."""
    dt = np.dtype(core.get_aval(p).dtype).type
    c = [np.asarray(v, dt) for v in (_NDTRI_P0, _NDTRI_Q0, _NDTRI_P1, _NDTRI_Q1, _NDTRI_P2,
                                     _NDTRI_Q2)]
    mcp = jnp.where(p > dt(-np.expm1(-2.0)), dt(1.0) - p, p)
    safe = jnp.where(mcp == dt(0.0), jnp.full(jnp.shape(p), dt(0.5)), mcp)
    w = safe - dt(0.5)
    ww = lax.square(w)
    big = w + w * ww * (jnp.polyval(c[0], ww) / jnp.polyval(c[1], ww))
    big = big * -dt(np.sqrt(2.0 * np.pi))
    z = lax.sqrt(dt(-2.0) * lax.log(safe))
    first = z - lax.log(z) / z
    tiny = jnp.polyval(c[4], 1 / z) / jnp.polyval(c[5], 1 / z) / z
    other = jnp.polyval(c[2], 1 / z) / jnp.polyval(c[3], 1 / z) / z
    x = jnp.where(safe > dt(np.exp(-2.0)), big, jnp.where(z >= dt(8.0), first - tiny,
                                                          first - other))
    x = jnp.where(p > dt(1.0 - np.exp(-2.0)), x, -x)
    inf = jnp.full(jnp.shape(p), dt(np.inf))
    return jnp.where(p == dt(0.0), -inf, jnp.where(p == dt(1.0), inf, x))
