"""`jax.scipy.special`'s gamma function (real and complex) and its relatives, the
Hurwitz zeta function and the modified Bessel functions of order 1: `gamma`, `beta`,
`betaln`, `loggamma`, `comb`, `polygamma`, `zeta`, `bernoulli`, `i1`, `i1e` (and `i0`, `i0e` on
`lax.bessel_i0e`).

Complex `gamma` and `loggamma` are the Lanczos approximation (g = 7, nine terms);
`masked_while` is the per-element loop the series of this package share.

They are compositions of the lax special-function primitives (`lgamma`, `polygamma`,
`zeta`, `bessel_i0e`, `bessel_i1e`), so their derivatives are the primitives' rules;
`zeta` alone carries a `custom_jvp`, differentiating an Euler-Maclaurin expansion of
the sum in both arguments (the `lax.zeta` primitive is differentiable in q only).
"""
from __future__ import annotations

import math
import operator
from fractions import Fraction

import numpy as np

from ... import core, dtypes, lax
from ... import numpy as jnp
from ...ad_api import jvp as _jvp
from ...custom_api import custom_jvp
from ...errors import ArgumentValueError, ConcretizationError, DTypeError
from ...numpy.operands import result as _weak_array
from ...numpy.ufuncs import promote_args_inexact, where
from ...numpy.util import library_jit

__all__ = ["beta", "betaln", "loggamma", "gamma", "comb", "polygamma", "zeta", "bernoulli", "i0", "i0e", "i1",
           "i1e", "gammasgn"]


def _inexact(name, *args):
    """`promote_args_inexact`, with Python scalars as arrays (so operators apply) of the
    promoted dtype (a float32 beside a float32 array under x64, where `lax.full` of the
    value made a float64), weak only where the promoted type is (a Python float beside
    a float32 array is a strong float32, as JAX's: a weak one became float64 under x64
    in the functions applied to it)."""
    _, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    out = [_weak_array(x) if isinstance(x, core.WeakConst) else x
           for x in promote_args_inexact(name, *args)]
    return out if weak else [lax.convert_element_type(x, core.get_aval(x).dtype,
                                                      weak_type=False) for x in out]


def _is_complex(x):
    return dtypes.issubdtype(core.get_aval(x).dtype, np.complexfloating)


def _real_arg(name, x):
    """`x` promoted to an inexact array; JAX's ValueError for complex input."""
    [x] = _inexact(name, x)
    if _is_complex(x):
        raise ArgumentValueError(f"{name} does not support complex-valued inputs.")
    return x


@library_jit
def gammasgn(x):
    """Elementwise sign of `gamma(x)`: NaN at the poles -1, -2, ..., at -inf and NaN;
    +1 at +0 and -1 at -0 (the side of the pole approached).

    Args:
        x: real array or scalar.

    Returns:
        An array of `x`'s shape, of a floating dtype.
    """
    x = _real_arg("gammasgn", x)
    fl = jnp.floor(x)
    neg = x < 0
    nan = (neg & (x == fl)) | jnp.isnan(x)
    minus = (neg & (jnp.remainder(fl, 2) != 0)) | ((x == 0) & jnp.signbit(x))
    dt = core.get_aval(x).dtype
    return where(nan, np.asarray(np.nan, dt),
                 where(minus, np.asarray(-1.0, dt), np.asarray(1.0, dt)))


def beta(a, b):
    """The beta function `gamma(a) gamma(b) / gamma(a + b)`, elementwise.

    Args:
        a, b: real arrays or scalars, broadcast together.

    Returns:
        An array of the broadcast shape, of a floating dtype.

    Example:
        >>> import astjax.scipy.special as sp
        >>> sp.beta(2.0, 3.0)
        Array(0.08333327, dtype=float32)
    """
    a, b = _inexact("beta", a, b)
    if _is_complex(a):
        raise ArgumentValueError("beta does not support complex-valued inputs.")
    sign = gammasgn(a) * gammasgn(b) * gammasgn(a + b)
    return sign * jnp.exp(betaln(a, b))


# Coefficients of the Stirling remainder del(x) = lgamma(x) - ((x - 1/2) log x - x +
# log(2 pi) / 2) ~ sum_k C_k x^-(2k+1): SciPy's cdflib fit (close to 1/12, -1/360, ...).
_STIRLING_DEL = (0.833333333333333e-01, -0.277777777760991e-02, 0.793650666825390e-03,
                 -0.595202931351870e-03, 0.837308034031215e-03, -0.165322962780713e-02)


def _log_gamma_ratio(a, b):
    """`lgamma(b) - lgamma(a + b)` for 0 <= a <= b, b >= 8, without the cancellation of
    two large lgammas: Stirling's formula for both, whose log terms combine to
    `-(b + a - 1/2) log1p(a/b) - a (log b - 1)`, plus del(b) - del(a + b)."""
    h = a / b
    y = 1.0 / (1.0 + h)       # b / (a + b)
    # del(b) - del(a + b) = sum_k C_k b^-(2k+1) (1 - y^(2k+1)), where
    # 1 - y^n = (1 - y) s_n, s_n = 1 + y + ... + y^(n-1), s_(n+2) = 1 + y + y^2 s_n
    y2, s, sums = y * y, 1.0, []
    for _ in _STIRLING_DEL:
        sums.append(s)
        s = 1.0 + (y + y2 * s)
    t = (1.0 / b) ** 2
    w = _STIRLING_DEL[-1] * sums[-1]
    for coeff, s_n in zip(_STIRLING_DEL[-2::-1], sums[-2::-1]):
        w = w * t + coeff * s_n
    w = w * (h * y / b)
    u = (b + (a - 0.5)) * jnp.log1p(h)
    v = a * (jnp.log(b) - 1.0)
    return where(u <= v, (w - v) - u, (w - u) - v)


def betaln(a, b):
    """Elementwise `log(|beta(a, b)|)`, `gammaln(a) + gammaln(b) - gammaln(a + b)`: for
    `0 <= min(a, b)` and `max(a, b) >= 8` the difference of the large gammalns is
    Stirling's series (SciPy's `algdiv`), so `betaln(1, 1e6)` keeps its digits.

    Args:
        a, b: the two real parameters (arrays or scalars; they broadcast).

    Returns:
        The log-beta values, in the parameters' common floating dtype.

    Example:
        >>> from astjax.scipy.special import betaln
        >>> betaln(1.0, 1e6)
        Array(-13.81551, dtype=float32, weak_type=True)
    """
    a, b = _inexact("betaln", a, b)
    lo, hi = jnp.minimum(a, b), jnp.maximum(a, b)
    small = lax.lgamma(lo) + (lax.lgamma(hi) - lax.lgamma(lo + hi))
    large = (hi >= 8) & (lo >= 0)
    # (the series sees harmless values where it is not taken, so no NaN reaches a gradient)
    ratio = _log_gamma_ratio(where(large, lo, 1.0), where(large, hi, 8.0))
    return where(large, lax.lgamma(lo) + ratio, small)


def loggamma(x):
    """The principal branch of `log(gamma(x))`: `gammaln(x)` for x > 0, NaN for x <= 0
    (real input); for complex input the analytic continuation with a single cut on the
    negative real axis (SciPy's branch), `nan+nanj` at the poles 0, -1, -2, ... and
    wherever a part is NaN.

    Complex input is shifted right, loggamma(z) = loggamma(z + n) - sum_(k<n) log(z + k)
    with n = max(0, ceil(1/2 - Re z)) (a loop of n steps), then evaluated by the
    Lanczos approximation, as JAX 0.10.2 does: its derivative is that formula's.

    Args:
        x: real or complex array or scalar.

    Returns:
        An array of `x`'s shape and (inexact) dtype.

    Example:
        >>> import astjax.scipy.special as sp
        >>> sp.loggamma(1 + 1j)
        Array(-0.6509228-0.30164003j, dtype=complex64)
    """
    [x] = _inexact("loggamma", x)
    if _is_complex(x):
        return _complex_loggamma(x)
    return where(x > 0, lax.lgamma(x), np.nan)


def gamma(x):
    """The gamma function, elementwise: `gammasgn(x) * exp(gammaln(x))` for real input
    (NaN at the poles -1, -2, ... and at -inf, +-inf at +-0); for complex input
    `exp` of the Lanczos approximation (with the reflection formula left of Re z = 1/2),
    `nan+nanj` at the poles and wherever a part is NaN.

    Args:
        x: real or complex array or scalar.

    Returns:
        An array of `x`'s shape and (inexact) dtype.

    Example:
        >>> import astjax.scipy.special as sp
        >>> sp.gamma(4.0)
        Array(6.0000052, dtype=float32)
    """
    [x] = _inexact("gamma", x)
    if _is_complex(x):
        bad = _complex_poles(x)
        safe = where(bad, jnp.ones_like(x), x)
        return where(bad, _complex_nan(x), jnp.exp(_lanczos_loggamma(safe)))
    return gammasgn(x) * jnp.exp(lax.lgamma(x))

# ------------------------------------------------- complex log-gamma (Lanczos, g = 7)


# the g = 7, nine-term Lanczos coefficients (Godfrey's, as in GSL and SciPy's docs)
_LANCZOS_G = 7.0
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028,
            771.32342877765313, -176.61502916214059, 12.507343278686905,
            -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7)


def _lanczos_loggamma(z):
    """log(gamma(z)) for complex z: Lanczos on Re z >= 1/2, the reflection
    gamma(z) gamma(1 - z) = pi / sin(pi z) on the left (its own branch there)."""
    left = jnp.real(z) < 0.5
    w = where(left, 1.0 - z, z) - 1.0
    series = _LANCZOS[0] + sum(c / (w + k) for k, c in enumerate(_LANCZOS[1:], start=1))
    t = w + (_LANCZOS_G + 0.5)
    right = 0.5 * math.log(2 * math.pi) + (w + 0.5) * jnp.log(t) - t + jnp.log(series)
    z_left = where(left, z, jnp.full_like(z, 0.5))  # the branch not taken stays finite
    return where(left, math.log(math.pi) - jnp.log(jnp.sin(math.pi * z_left)) - right, right)


def _complex_poles(z):
    """Where complex gamma has no value: NaN parts, or z in {0, -1, -2, ...}."""
    re = jnp.real(z)
    return jnp.isnan(z) | ((jnp.imag(z) == 0) & (re == jnp.floor(re)) & (re <= 0))


def _complex_nan(z):
    return np.asarray(complex(np.nan, np.nan), core.get_aval(z).dtype)


def masked_while(active, step, init):
    """Iterate `step(k, state) -> state` (k = 0, 1, ... a scalar) on the elements where
    `active(k, state)` holds, until it holds nowhere: what `vmap` makes of a per-element
    `while_loop` (an element once stopped stays stopped, so k is shared)."""
    def body(carry):
        k, state = carry
        on = active(k, state)
        new = step(k, state)
        return k + 1, tuple(where(on, n, o) for n, o in zip(new, state))
    return lax.while_loop(lambda c: jnp.any(active(*c)), body,
                          (np.int32(0), tuple(init)))[1]


def _complex_loggamma(z):
    """SciPy's branch: shift z right of Re = 1/2, subtracting the logs of the factors."""
    bad = _complex_poles(z)
    z = where(bad, jnp.ones_like(z), z)
    rdt = jnp.real(z).dtype
    n = jnp.maximum(jnp.ceil(0.5 - jnp.real(z)), np.asarray(0, rdt))

    def step(k, state):
        zk = z + lax.convert_element_type(k, rdt)
        return (state[0] + jnp.log(where(k < n, zk, jnp.ones_like(z))),)
    [logs] = masked_while(lambda k, s: k < n, step, (jnp.zeros_like(z),))
    return where(bad, _complex_nan(z), _lanczos_loggamma(z + n) - logs)


@library_jit(static_argnames=("repetition",))
def comb(N, k, *, repetition=False):
    """The number of combinations of `N` things taken `k` at a time, through `gammaln`
    (a float); 0 where `N < 0`, `k < 0` or `k > N` (without repetition).

    Args:
        N, k: arrays or scalars, broadcast together.
        repetition: count the combinations with repetition, `comb(N + k - 1, k)`.

    Returns:
        An array of the broadcast shape, of a floating dtype.
    """
    N, k = _inexact("comb", N, k)
    if repetition:
        return where((k == 0) & (N >= 0), 1.0, comb(N + k - 1, k))
    ok = (k <= N) & (N >= 0) & (k >= 0)
    n0, k0 = where(ok, N, 0.0), where(ok, k, 0.0)
    val = jnp.exp(lax.lgamma(n0 + 1) - lax.lgamma(k0 + 1) - lax.lgamma(n0 + 1 - k0))
    return where(ok, val, 0.0)


def polygamma(n, x):
    """The `n`-th derivative of `digamma` at `x`, elementwise.

    Args:
        n: integer array or scalar, the order (JAX requires an integer dtype).
        x: real array or scalar.

    Returns:
        An array of the broadcast shape, of a floating dtype.
    """
    n_dt = core.get_aval(n).dtype if isinstance(n, core.Tracer) or hasattr(n, "aval") \
        else np.asarray(n).dtype
    if not dtypes.issubdtype(n_dt, np.integer):
        raise ArgumentValueError(
            f"Argument `n` to polygamma must be of integer type. Got dtype {n_dt}.")
    n, x = _inexact("polygamma", n, x)
    if _is_complex(x):
        raise ArgumentValueError("polygamma does not support complex-valued inputs.")
    return lax.polygamma(n, x)

# ------------------------------------------------------------------ Hurwitz zeta


def _bernoulli_exact(n):
    """B_0 .. B_n as Fractions (B_1 = -1/2), by the recurrence sum_k C(m+1, k) B_k = 0."""
    b = [Fraction(1)]
    for m in range(1, n + 1):
        b.append(-sum(math.comb(m + 1, k) * b[k] for k in range(m)) / (m + 1))
    return b


_EXACT = _bernoulli_exact(40)
# B_2j / (2j)! for j = 1 .. 16: the Euler-Maclaurin weights of the zeta expansion
_EM_WEIGHTS = [float(bk / math.factorial(2 * j))
               for j, bk in enumerate(_EXACT[2:34:2], start=1)]


def _zeta_expansion(s, a):
    """zeta(s, a) by Euler-Maclaurin: the first N terms, the integral of the rest, and M
    correction terms (N = M = 8 in float32, 16 in float64), differentiable in s and a."""
    n = 16 if core.get_aval(a).dtype == np.float64 else 8
    head = sum((a + k) ** (-s) for k in range(n))
    an = a + n
    integral = an ** (1 - s) / (s - 1)
    corr = 0.5
    rising = s / an  # s (s + 1) ... (s + 2j - 2) / (a + N)^(2j - 1)
    for j in range(n):
        corr = corr + _EM_WEIGHTS[j] * rising
        rising = rising * (s + 2 * j + 1) * (s + 2 * j + 2) / (an * an)
    return head + integral + an ** (-s) * corr


@custom_jvp
def _zeta(x, q):
    return lax.zeta(x, q)


def _zeta_jvp(primals, tangents):
    return _jvp(_zeta_expansion, primals, tangents)


_zeta.defjvp(_zeta_jvp)


def zeta(x, q=None):
    """The Hurwitz zeta function `sum_k (q + k)^-x`, elementwise (the Riemann function,
    `q=None`, is not provided, as in JAX: a NotImplementedError).

    Args:
        x, q: real arrays or scalars, broadcast together.

    Returns:
        An array of the broadcast shape, of a floating dtype; differentiable in both.
    """
    if q is None:
        raise NotImplementedError(
            "the Riemann zeta function (q=None) is not provided, as in JAX: pass q "
            "(q=1.0 gives the Riemann function) to compute the Hurwitz zeta function")
    x, q = _inexact("zeta", x, q)
    if _is_complex(x):   # JAX's TypeError (its lax.zeta takes floats only)
        raise DTypeError(f"zeta does not accept dtype {core.get_aval(x).dtype}: real x and q "
                         "only", hint="pass real x and q")
    return _zeta(x, q)


def bernoulli(n):
    """The Bernoulli numbers B_0 .. B_n (B_1 = -1/2), as an array of `n + 1` floats.

    Args:
        n: a static non-negative integer.

    Returns:
        A 1-D array of the default float dtype.
    """
    if isinstance(n, core.Tracer):
        raise ConcretizationError("Argument n of bernoulli must be a static integer",
                                  hint="pass n as a Python int (or mark it static)")
    n = operator.index(n)
    if n < 0:
        raise ArgumentValueError("n must be a non-negative integer.")
    dt = dtypes.canonicalize(np.dtype(np.float64))
    vals = np.zeros(n + 1)
    vals[:min(n, 40) + 1] = [float(b) for b in _EXACT[:n + 1]]
    # B_m = (-1)^(m/2+1) 2 m! zeta(m) / (2 pi)^m for even m >= 4 (float64; inf when
    # it overflows), the odd ones past B_1 vanish; zeta(m) summed to K, plus the
    # Euler-Maclaurin tail of the rest
    K = 40
    ks = np.arange(1, K, dtype=np.float64)
    scale = 2.0 * 2.0 / (2 * np.pi) ** 2  # 2 * 2! / (2 pi)^2, the m = 2 factor
    with np.errstate(over="ignore"):
        for m in range(4, n + 1, 2):
            scale = scale * (m - 1) * m / (2 * np.pi) ** 2
            if m <= 40:
                continue
            zeta_m = (np.sum(ks ** -m) + K ** (1.0 - m) / (m - 1) + 0.5 * K ** -float(m)
                      + m * K ** (-m - 1.0) / 12)
            vals[m] = (-1.0) ** (m // 2 + 1) * scale * zeta_m
    with np.errstate(over="ignore"):
        return jnp.asarray(vals.astype(dt))

# ------------------------------------------------------------ modified Bessel I_0, I_1


def _bessel(name, scaled_fn, scaled, what):
    def f(x):
        [x] = _inexact(name, x)
        out = scaled_fn(x)
        return out if scaled else jnp.exp(jnp.abs(x)) * out
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"""{what}, elementwise.

    Args:
        x: real array or scalar.

    Returns:
        An array of `x`'s shape, of a floating dtype.
    """
    return f


i0e = _bessel("i0e", lax.bessel_i0e, True,
              "Exponentially scaled modified Bessel function of order 0, `exp(-|x|) I_0(x)`")
i0 = _bessel("i0", lax.bessel_i0e, False,
             "Modified Bessel function of the first kind, order 0 (`exp(|x|) i0e(x)`)")
i1e = _bessel("i1e", lax.bessel_i1e, True,
              "Exponentially scaled modified Bessel function of order 1, `exp(-|x|) I_1(x)`")
i1 = _bessel("i1", lax.bessel_i1e, False,
             "Modified Bessel function of the first kind, order 1 (`exp(|x|) i1e(x)`)")
