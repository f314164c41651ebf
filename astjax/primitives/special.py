"""Incomplete gamma and beta functions: `igamma` (regularized lower P(a, x)),
`igammac` (upper Q(a, x) = 1 - P) and `betainc` (regularized I_x(a, b)); and the
Hurwitz `zeta` and the exponentially scaled Bessel functions `bessel_i0e`, `bessel_i1e`.

StableHLO has no op for them, so each lowers to a staged computation of lax ops (as
JAX's lowering does): a power series for P where x < a + 1 and a continued fraction
(modified Lentz) for Q elsewhere; for I_x(a, b) the continued fraction, on the
reflected problem 1 - I_{1-x}(b, a) where x > (a + 1) / (a + b + 2). Both run a
fixed number of iterations in a `fori_loop`. The NumPy reference is the same
algorithm written once against an ops table (`_NP` / `_lax`), in float64.

Edge values are JAX's: P(0, x > 0) = 1, P(a, 0) = 0, P(a, inf) = 1, NaN for a < 0 or
x < 0; I_x(0, b) = 1, I_x(a, 0) = 0, NaN outside 0 <= x <= 1 or for a, b < 0.
Derivatives with respect to x are the densities, x^(a-1) e^-x / Gamma(a) and
x^(a-1) (1-x)^(b-1) / B(a, b); with respect to a, P and Q use `igamma_grad_a` (the
series and continued fraction differentiated along their iterations); `betainc`
raises for a and b, as JAX's does.

`zeta` lowers to CHLO's op (JAX's lowering); `bessel_i1e` too, and `bessel_i0e`, which
CHLO lacks, to its power series below a threshold and the Hankel asymptotic expansion
above (both positive-term sums in float32's and float64's ranges).
"""
from __future__ import annotations

import math
import types

import numpy as np

from .. import core, dtypes
from ..core import ShapedArray, bind
from ..errors import ArgumentValueError, DTypeError
from .base import (FLOAT, binary_shape, binop, check_dtype, defbroadcasting, defjvp, is_zero,
                   lax_ops, lower_inline, mark_unsupported, register, unop)
from .base import tangent_aval as _aval
from .elementwise import _hurwitz_zeta, digamma_p
from .while_loop import fori_loop

__all__ = ["igamma_p", "igammac_p", "betainc_p", "igamma_grad_a_p", "igamma", "igammac",
           "betainc", "igamma_grad_a", "zeta_p", "bessel_i0e_p", "bessel_i1e_p", "zeta",
           "bessel_i0e", "bessel_i1e"]

_ITERS = 200
_TINY = 1e-30

_NP = types.SimpleNamespace(
    exp=np.exp, log=np.log, log1p=np.log1p, abs=np.abs, where=np.where, sqrt=np.sqrt,
    sign=np.sign, is64=lambda x: True,
    full=lambda like, v: np.full_like(like, v),
    lgamma=np.vectorize(math.lgamma, otypes=[np.float64]), digamma=digamma_p.impl,
    loop=lambda n, body, carry: _py_loop(n, body, carry))


def _py_loop(n, body, carry):
    for i in range(n):
        carry = body(np.float64(i), carry)
    return carry


def _lax():
    L = lax_ops()
    return types.SimpleNamespace(
        exp=L.exp, log=L.log, log1p=L.log1p, abs=L.abs, lgamma=L.lgamma, digamma=L.digamma,
        sqrt=L.sqrt, sign=L.sign, is64=lambda x: _aval(x).dtype == np.float64,
        where=L.select, full=lambda like, v: L.full_like(like, v),
        loop=lambda n, body, carry: fori_loop(
            0, n, core.RawFunction(lambda i, c: body(
                L.convert_element_type(i, _aval(carry[0]).dtype), c)), carry))


def _fix(F, d, like):
    """d, kept away from zero (Lentz's method)."""
    return F.where(F.abs(d) < _TINY, F.full(like, _TINY), d)


def _igamma_both(F, a, x):
    """(P, Q) for a > 0, x > 0 (finite)."""
    log_front = a * F.log(x) - x - F.lgamma(a)
    front = F.exp(log_front)

    def series(i, c):
        ap, term, total = c
        ap = ap + 1.0
        term = term * x / ap
        return ap, term, total + term
    _, _, total = F.loop(_ITERS, series, (a, 1.0 / a, 1.0 / a))
    p_series = total * front

    def lentz(i, c):
        b, cc, d, h = c
        k = i + 1.0
        an = -k * (k - a)
        b = b + 2.0
        d = 1.0 / _fix(F, an * d + b, x)
        cc = _fix(F, b + an / cc, x)
        return b, cc, d, h * d * cc
    b0 = x + 1.0 - a
    d0 = 1.0 / _fix(F, b0, x)
    _, _, _, h = F.loop(_ITERS, lentz, (b0, F.full(x, 1.0 / _TINY), d0, d0))
    q_cf = front * h
    use_series = x < a + 1.0
    return F.where(use_series, p_series, 1.0 - q_cf), F.where(use_series, 1.0 - p_series, q_cf)


def _igamma_da(F, a, x):
    """dP/da for a > 0, x > 0 (finite): the series and the continued fraction of
    `_igamma_both` differentiated in a along their iterations (forward mode)."""
    front = F.exp(a * F.log(x) - x - F.lgamma(a))
    dlog_front = F.log(x) - F.digamma(a)

    def series(i, c):
        ap, term, total, dterm, dtotal = c
        ap = ap + 1.0
        dterm = (dterm - term / ap) * x / ap
        term = term * x / ap
        return ap, term, total + term, dterm, dtotal + dterm
    _, _, total, _, dtotal = F.loop(_ITERS, series, (a, 1.0 / a, 1.0 / a, -1.0 / (a * a),
                                                     -1.0 / (a * a)))
    dp_series = front * (dlog_front * total + dtotal)

    def lentz(i, c):
        b, cc, d, h, dcc, dd, dh = c
        k = i + 1.0
        an = -k * (k - a)
        b = b + 2.0
        den = an * d + b
        dden = k * d + an * dd - 1.0
        d_new = 1.0 / _fix(F, den, x)
        dd_new = -dden * d_new * d_new
        c_new = _fix(F, b + an / cc, x)
        dc_new = -1.0 + k / cc - an * dcc / (cc * cc)
        h_new = h * d_new * c_new
        dh_new = dh * d_new * c_new + h * dd_new * c_new + h * d_new * dc_new
        return b, c_new, d_new, h_new, dc_new, dd_new, dh_new
    b0 = x + 1.0 - a
    d0 = 1.0 / _fix(F, b0, x)
    zero = F.full(x, 0.0)
    _, _, _, h, _, _, dh = F.loop(_ITERS, lentz, (b0, F.full(x, 1.0 / _TINY), d0, d0, zero,
                                                 d0 * d0, d0 * d0))
    dq_cf = front * (dlog_front * h + dh)
    return F.where(x < a + 1.0, dp_series, -dq_cf)


def _igamma_grad_a(F, a, x):
    nan = (a <= 0.0) | (x < 0.0) | (a != a) | (x != x)
    flat = ((x == 0.0) | (x == np.inf)) & ~nan
    ok = ~(nan | flat)
    one = F.full(x, 1.0)
    out = _igamma_da(F, F.where(ok, a, one), F.where(ok, x, one))
    out = F.where(flat, F.full(x, 0.0), out)
    return F.where(nan, F.full(x, np.nan), out)


def _igamma_edges(F, a, x, upper):
    nan = (a < 0.0) | (x < 0.0) | (a != a) | (x != x) | ((a == 0.0) & (x == 0.0))
    one_p = ((a == 0.0) & (x > 0.0)) | (x == np.inf)
    zero_p = (x == 0.0) & ~nan
    ok = ~(nan | one_p | zero_p)
    one = F.full(x, 1.0)
    sa, sx = F.where(ok, a, one), F.where(ok, x, one)
    p, q = _igamma_both(F, sa, sx)
    out = q if upper else p
    out = F.where(one_p, F.full(x, 0.0 if upper else 1.0), out)
    out = F.where(zero_p, F.full(x, 1.0 if upper else 0.0), out)
    return F.where(nan, F.full(x, np.nan), out)


def _betacf(F, a, b, x):
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    d0 = 1.0 / _fix(F, 1.0 - qab * x / qap, x)

    def step(i, c):
        cc, d, h = c
        m = i + 1.0
        m2 = 2.0 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 / _fix(F, 1.0 + aa * d, x)
        cc = _fix(F, 1.0 + aa / cc, x)
        h = h * d * cc
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 / _fix(F, 1.0 + aa * d, x)
        cc = _fix(F, 1.0 + aa / cc, x)
        return cc, d, h * d * cc
    _, _, h = F.loop(_ITERS, step, (F.full(x, 1.0), d0, d0))
    return h


def _betainc_full(F, a, b, x):
    # the edges as SciPy and JAX: I_0 = 0 and I_1 = 1 for every a, b >= 0 but a = b = 0
    # and a = b = inf (NaN); inside (0, 1), a = 0 or b = inf gives 1, b = 0 or a = inf 0
    nan = ((a < 0.0) | (b < 0.0) | (x < 0.0) | (x > 1.0) | (a != a) | (b != b) | (x != x) |
           ((a == 0.0) & (b == 0.0)) | ((a == np.inf) & (b == np.inf)))
    ends = ((x == 0.0) | (x == 1.0)) & ~nan
    zero_a = ((a == 0.0) | (b == np.inf)) & ~nan & ~ends
    zero_b = ((b == 0.0) | (a == np.inf)) & ~nan & ~ends & ~zero_a
    ok = ~(nan | zero_a | zero_b | ends)
    one = F.full(x, 1.0)
    sa, sb, sx = F.where(ok, a, one), F.where(ok, b, one), F.where(ok, x, F.full(x, 0.5))
    swap = sx > (sa + 1.0) / (sa + sb + 2.0)
    sa, sb, sx = F.where(swap, sb, sa), F.where(swap, sa, sb), F.where(swap, 1.0 - sx, sx)
    log_front = (F.lgamma(sa + sb) - F.lgamma(sa) - F.lgamma(sb) + sa * F.log(sx) +
                 sb * F.log1p(-sx))
    val = F.exp(log_front) * _betacf(F, sa, sb, sx) / sa
    out = F.where(swap, 1.0 - val, val)
    out = F.where(ends, x, out)
    out = F.where(zero_a, one, out)
    out = F.where(zero_b, F.full(x, 0.0), out)
    return F.where(nan, F.full(x, np.nan), out)


def _np_ref(fn):
    def impl(*args, **_):
        dt = np.result_type(*[np.asarray(v) for v in args])
        vals = np.broadcast_arrays(*[np.asarray(v, np.float64) for v in args])
        with np.errstate(all="ignore"):
            return np.asarray(fn(_NP, *vals), dt)
    return impl


def _lowering(fn):
    def rule(ctx, *args):
        out = ctx.avals_out[0]
        full = [ctx.broadcast(x, a, out.update(dtype=a.dtype)) for x, a in zip(args, ctx.avals_in)]
        res, = lower_inline(ctx, lambda *xs: [fn(_lax(), *xs)], [out] * len(args), full)
        return res
    return rule


def _abstract(name):
    def ae(*avals):
        check_dtype(name, FLOAT, *avals)
        if len({a.dtype for a in avals}) != 1:
            raise ArgumentValueError(f"{name} needs operands of one dtype, got "
                                     f"{', '.join(a.str_short(True) for a in avals)}")
        shape = avals[0].shape
        for a in avals[1:]:
            shape = binary_shape(name, ShapedArray(shape, a.dtype), a)
        # JAX's standard weak-type rule: weak when every operand is
        return ShapedArray(shape, avals[0].dtype, all(a.weak_type for a in avals))
    return ae


def _x_density(name, log_density, n_params, message):
    """JVP: the density times the tangent of x (the last operand); a tangent of a
    parameter raises."""
    def jvp(primals, tangents):
        p = {"igamma": igamma_p, "igammac": igammac_p, "betainc": betainc_p}[name]
        out = bind(p, *primals)
        L = lax_ops()
        da = None
        if any(not is_zero(t) for t in tangents[:n_params]):
            if name == "betainc":
                raise message()
            ga = bind(igamma_grad_a_p, *primals)
            da = L.mul(L.neg(ga) if name == "igammac" else ga, _full_like_out(tangents[0], out))
        t = tangents[-1]
        if is_zero(t):
            return out, (core.Zero(_aval(out)) if da is None else da)
        shape = _aval(out).shape
        full = [L.broadcast_in_dim(v, shape, tuple(range(len(shape) - _aval(v).ndim,
                                                          len(shape))))
                if _aval(v).shape != shape else v for v in primals]
        dens = L.exp(log_density(L, *full))
        if name == "igammac":
            dens = L.neg(dens)
        if _aval(t).shape != shape:
            t = L.broadcast_in_dim(t, shape, tuple(range(len(shape) - _aval(t).ndim,
                                                         len(shape))))
        dx = L.mul(dens, t)
        return out, dx if da is None else L.add(dx, da)
    return jvp


def _full_like_out(t, out):
    shape = _aval(out).shape
    if _aval(t).shape == shape:
        return t
    return lax_ops().broadcast_in_dim(t, shape, tuple(range(len(shape) - _aval(t).ndim,
                                                            len(shape))))


def _log_gamma_density(L, a, x):
    # JAX's form, operation for operation: -x + (a - 1) log x - lgamma(a)
    # (NaN at a == 1, x == 0, as JAX's: 0 * log 0)
    return L.sub(L.add(L.neg(x), L.mul(L.sub(a, L.full_like(a, 1)), L.log(x))), L.lgamma(a))


def _log_beta_density(L, a, b, x):
    # JAX's form: (b - 1) log1p(-x) + (a - 1) log x - (lgamma a + lgamma b - lgamma(a + b))
    one = L.full_like(a, 1)
    lbeta = L.sub(L.add(L.lgamma(a), L.lgamma(b)), L.lgamma(L.add(a, b)))
    return L.sub(L.add(L.mul(L.sub(b, one), L.log1p(L.neg(x))),
                       L.mul(L.sub(a, one), L.log(x))), lbeta)


def _beta_ab_error():
    return ArgumentValueError("Betainc gradient with respect to a and b not supported.")


def _declare(name, fn, n_params, log_density, error):
    p = core.new_primitive(name)
    register(p, impl=_np_ref(fn), abstract_eval=_abstract(name), lowering=_lowering(fn),
             jvp=_x_density(name, log_density, n_params, error))
    defbroadcasting(p)
    return p


igamma_p = _declare("igamma", lambda F, a, x: _igamma_edges(F, a, x, False), 1,
                    _log_gamma_density, None)
igammac_p = _declare("igammac", lambda F, a, x: _igamma_edges(F, a, x, True), 1,
                     _log_gamma_density, None)
betainc_p = _declare("betainc", _betainc_full, 2, _log_beta_density, _beta_ab_error)

igamma_grad_a_p = core.new_primitive("igamma_grad_a")
register(igamma_grad_a_p, impl=_np_ref(_igamma_grad_a), abstract_eval=_abstract("igamma_grad_a"),
         lowering=_lowering(_igamma_grad_a))
mark_unsupported(igamma_grad_a_p, "jvp", "JAX defines no derivative of igamma_grad_a")
defbroadcasting(igamma_grad_a_p)


def _float_args(name, *args):
    """The operands of `lax.<name>`, as JAX's: floating dtypes only (an integer or complex
    operand is a TypeError), all one dtype; a Python scalar is a weak value of its default
    dtype (`lax.igamma(x_f32, 2.0)` runs, `lax.igamma(x_f32, 2)` is a TypeError)."""
    args = [np.asarray(v, dtypes.canonicalize(np.asarray(v).dtype))
            if isinstance(v, (list, tuple)) else v for v in args]
    args = [core.WeakConst(np.asarray(v, dtypes.python_scalar_dtype(v))[()])
            if dtypes.is_weak_scalar(v) else v for v in args]
    dts = [_aval(v).dtype for v in args]
    for i, dt in enumerate(dts):
        if not dtypes.is_float(dt):
            where = f" at position {i}" if len(args) > 1 else ""
            raise DTypeError(f"{name} does not accept dtype {np.dtype(dt).name}{where}. Accepted "
                             f"dtypes{where} are subtypes of floating.",
                             hint="convert to a floating dtype first (jax.scipy.special's "
                                  "functions promote their arguments)")
    if any(dt != dts[0] for dt in dts):
        raise DTypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                         f"{', '.join(np.dtype(dt).name for dt in dts)}.")
    return args


def igamma(a, x):
    """`lax.igamma`: the regularized lower incomplete gamma function P(a, x)."""
    return bind(igamma_p, *_float_args("igamma", a, x))


def igammac(a, x):
    """`lax.igammac`: the regularized upper incomplete gamma function Q(a, x)."""
    return bind(igammac_p, *_float_args("igammac", a, x))


def igamma_grad_a(a, x):
    """`lax.igamma_grad_a`: the derivative of P(a, x) with respect to a."""
    return bind(igamma_grad_a_p, *_float_args("igamma_grad_a", a, x))


def betainc(a, b, x):
    """`lax.betainc`: the regularized incomplete beta function I_x(a, b)."""
    return bind(betainc_p, *_float_args("betainc", a, b, x))

# ------------------------------------------------------------------- Hurwitz zeta


def _zeta_ref(x, q):
    """zeta(x, q) = sum_k (q + k)^-x in float64: the terms while q + k < 10, then the
    Euler-Maclaurin tail; inf at x == 1 and at the poles q = 0, -1, ...; NaN for x < 1
    and for q <= 0 with a non-integer x (CHLO's conventions)."""
    s = np.asarray(x, np.float64)
    out = _hurwitz_zeta(s, q)
    s = s + np.zeros_like(out)
    q = np.asarray(q, np.float64) + np.zeros_like(out)
    out = np.where(s == 1, np.inf, out)
    out = np.where((q <= 0) & (q == np.floor(q)), np.inf, out)
    out = np.where((q <= 0) & (s != np.floor(s)), np.nan, out)
    return np.where(s < 1, np.nan, out)


def _zeta_dx(t, y, x, q):
    raise ArgumentValueError("lax.zeta has no derivative with respect to x (JAX defines "
                             "none either)",
                             hint="jax.scipy.special.zeta is differentiable in both arguments")


zeta_p = binop("zeta", _zeta_ref, "chlo.zeta", FLOAT)
defjvp(zeta_p, _zeta_dx, lambda t, y, x, q: lax_ops().mul(
    t, lax_ops().mul(lax_ops().neg(x), zeta(lax_ops().add(x, lax_ops().full_like(x, 1)), q))))


def zeta(x, q):
    """`lax.zeta`: the Hurwitz zeta function sum_k (q + k)^-x, elementwise."""
    return bind(zeta_p, *_float_args("zeta", x, q))

# ------------------------------------------------- exponentially scaled Bessel I_0, I_1


def _bessel_ie(F, x, v):
    """exp(-|x|) I_v(x) for v in (0, 1): the power series (x/2)^(2k+v) / (k! (k+v)!)
    below |x| = T, the Hankel expansion sum_k (-1)^k a_k(v) / x^k / sqrt(2 pi x) above;
    T, and the term counts, are chosen per precision so both sums have converged."""
    T, n_series, n_asym = (30.0, 100, 32) if F.is64(x) else (15.0, 48, 20)
    ax = F.abs(x)
    y = x * x * 0.25
    one = F.full(x, 1.0)
    t0 = one if v == 0 else x * 0.5

    def series_term(k, c):
        t, s = c
        t = t * y / ((k + 1.0) * (k + 1.0 + v))
        return t, s + t
    _, series = F.loop(n_series, series_term, (t0, t0))
    series = series * F.exp(-ax)
    big = F.where(ax < T, F.full(x, T), ax)

    def hankel_term(k, c):
        t, s = c
        odd = 2.0 * k + 1.0
        t = t * (odd * odd - 4.0 * v * v) / ((k + 1.0) * 8.0 * big)
        return t, s + t
    _, asym = F.loop(n_asym, hankel_term, (one, one))
    asym = asym / F.sqrt(big * (2 * math.pi))
    if v == 1:
        asym = asym * F.sign(x)
    return F.where(ax < T, series, asym)


def _i0e_jvp(t, y, x):
    L = lax_ops()
    return L.mul(t, L.sub(bessel_i1e(x), L.mul(L.sign(x), y)))


def _i1e_jvp(t, y, x):
    # d/dx = i0e(x) - y (sign(x) + 1/x); 1/2 at (and within float eps of) 0
    L = lax_ops()
    eps = np.asarray(dtypes.finfo(_aval(x).dtype).eps, _aval(x).dtype)
    not_tiny = L.gt(L.abs(x), L.full_like(x, eps))
    safe = L.select(not_tiny, x, L.full_like(x, eps))
    d = L.sub(bessel_i0e(safe), L.mul(y, L.add(L.sign(safe), L.div(L.full_like(x, 1), safe))))
    return L.mul(t, L.select(not_tiny, d, L.full_like(x, 0.5)))


# Cephes' Chebyshev coefficients of i0e: |x| <= 8 in (x/2 - 2), above in (32/x - 2) and
# divided by sqrt(x); float32 uses the tails of the float64 series (Cephes' i0ef)
_I0E_A = [-4.41534164647933937950E-18, 3.33079451882223809783E-17,
          -2.43127984654795469359E-16, 1.71539128555513303061E-15,
          -1.16853328779934516808E-14, 7.67618549860493561688E-14,
          -4.85644678311192946090E-13, 2.95505266312963983461E-12,
          -1.72682629144155570723E-11, 9.67580903537323691224E-11,
          -5.18979560163526290666E-10, 2.65982372468238665035E-9,
          -1.30002500998624804212E-8, 6.04699502254191894932E-8,
          -2.67079385394061173391E-7, 1.11738753912010371815E-6,
          -4.41673835845875056359E-6, 1.64484480707288970893E-5,
          -5.75419501008210370398E-5, 1.88502885095841655729E-4,
          -5.76375574538582365885E-4, 1.63947561694133579842E-3,
          -4.32430999505057594430E-3, 1.05464603945949983183E-2,
          -2.37374148058994688156E-2, 4.93052842396707084878E-2,
          -9.49010970480476444210E-2, 1.71620901522208775349E-1,
          -3.04682672343198398683E-1, 6.76795274409476084995E-1]
_I0E_B = [-7.23318048787475395456E-18, -4.83050448594418207126E-18,
          4.46562142029675999901E-17, 3.46122286769746109310E-17,
          -2.82762398051658348494E-16, -3.42548561967721913462E-16,
          1.77256013305652638360E-15, 3.81168066935262242075E-15,
          -9.55484669882830764870E-15, -4.15056934728722208663E-14,
          1.54008621752140982691E-14, 3.85277838274214270114E-13,
          7.18012445138366623367E-13, -1.79417853150680611778E-12,
          -1.32158118404477131188E-11, -3.14991652796324136454E-11,
          1.18891471078464383424E-11, 4.94060238822496958910E-10,
          3.39623202570838634515E-9, 2.26666899049817806459E-8,
          2.04891858946906374183E-7, 2.89137052083475648297E-6,
          6.88975834691682398426E-5, 3.36911647825569408990E-3,
          8.04490411014108831608E-1]


def _chebyshev(L, x, coefficients):
    """Clenshaw's sum of a Chebyshev series at x, from zero partial sums (JAX's order)."""
    b0 = b1 = b2 = L.full_like(x, 0)
    for c in coefficients:
        b2, b1 = b1, b0
        b0 = L.add(L.sub(L.mul(x, b1), b2), L.full_like(x, c))
    return L.mul(L.full_like(x, 0.5), L.sub(b0, b2))


def _i0e_lowering(ctx, x):
    """i0e as JAX lowers it (not a series of astjax's: the same bits): Cephes' Chebyshev
    expansions, float16 / bfloat16 computed in float32."""
    dt = ctx.avals_in[0].dtype

    def i0e(x):
        L = lax_ops()
        wide = dt if dt in (np.float32, np.float64) else np.dtype(np.float32)
        z = L.abs(L.convert_element_type(x, wide))
        a, b = (_I0E_A, _I0E_B) if wide == np.float64 else (_I0E_A[-18:], _I0E_B[-7:])
        half, two = L.full_like(z, 0.5), L.full_like(z, 2.0)
        small = _chebyshev(L, L.sub(L.mul(half, z), two), a)
        large = L.div(_chebyshev(L, L.sub(L.div(L.full_like(z, 32.0), z), two), b), L.sqrt(z))
        return [L.convert_element_type(L.select(L.le(z, L.full_like(z, 8.0)), small, large), dt)]
    res, = lower_inline(ctx, i0e, ctx.avals_in, [x])
    return res


bessel_i0e_p = unop("bessel_i0e", _np_ref(lambda F, x: _bessel_ie(F, x, 0)), _i0e_lowering,
                    FLOAT)
defjvp(bessel_i0e_p, _i0e_jvp)
bessel_i1e_p = unop("bessel_i1e", _np_ref(lambda F, x: _bessel_ie(F, x, 1)),
                    "chlo.bessel_i1e", FLOAT)
defjvp(bessel_i1e_p, _i1e_jvp)


def bessel_i0e(x):
    """`lax.bessel_i0e`: exp(-|x|) I_0(x), elementwise."""
    return bind(bessel_i0e_p, *_float_args("bessel_i0e", x))


def bessel_i1e(x):
    """`lax.bessel_i1e`: exp(-|x|) I_1(x), elementwise."""
    return bind(bessel_i1e_p, *_float_args("bessel_i1e", x))
