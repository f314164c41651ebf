"""Incomplete gamma and beta functions: `igamma` (regularized lower P(a, x)),
`igammac` (upper Q(a, x) = 1 - P), `igamma_grad_a` (dP/da), the Gamma sample
derivative behind `random_gamma_grad`, and `betainc` (regularized I_x(a, b)); and the
Hurwitz `zeta` and the exponentially scaled Bessel functions `bessel_i0e`, `bessel_i1e`.

StableHLO has no op for the incomplete functions, so each lowers to JAX's own
computation of lax ops, in JAX's operation order (the same bits on every input): for
P and Q, the power series where x < 1 or x <= a (Q: x < 1 or x < a) and Cephes'
continued fraction elsewhere, each a while loop run to convergence element by element,
carrying the derivatives in a alongside; for I_x(a, b), the continued fraction DLMF
8.17.22 by the modified Lentz method (at most 200 steps in float32, 600 in float64, the
whole array stepping until every element has converged), on 1 - I_{1-x}(b, a) where
x >= (a + 1) / (a + b + 2). float16 and bfloat16 are computed in float32. Eagerly, and
when staging folds known operands, the lowering runs (on XLA): a NumPy copy could not
give XLA's bits.

Edge values are JAX's: P(0, x > 0) = 1, P(a, 0) = 0, P(a, inf) = 1, NaN for a < 0 or
x < 0; I_x(0, b) = 1, I_x(a, 0) = 0, NaN outside 0 <= x <= 1 or for a, b < 0.
Derivatives with respect to x are the densities, x^(a-1) e^-x / Gamma(a) and
x^(a-1) (1-x)^(b-1) / B(a, b); with respect to a, P and Q use `igamma_grad_a`;
`betainc` raises for a and b, as JAX's does.

`zeta` lowers to CHLO's op (JAX's lowering); `bessel_i1e` too, and `bessel_i0e`, which
CHLO lacks, to Cephes' Chebyshev expansions, as JAX's lowering.
"""
from __future__ import annotations

import numpy as np

from .. import core, dtypes
from ..core import ShapedArray, bind
from ..errors import ArgumentValueError, DTypeError
from .base import (FLOAT, binary_shape, binop, check_dtype, defbroadcasting, defjvp, is_zero,
                   lax_ops, lower_inline, mark_unsupported, register, unop)
from .base import tangent_aval as _aval
from .elementwise import _hurwitz_zeta

__all__ = ["igamma_p", "igammac_p", "betainc_p", "igamma_grad_a_p", "igamma", "igammac",
           "betainc", "igamma_grad_a", "zeta_p", "bessel_i0e_p", "bessel_i1e_p", "zeta",
           "bessel_i0e", "bessel_i1e"]

# ------------------------------------------- JAX's incomplete gamma and beta algorithms
# The same computations as JAX's lowerings (jax/_src/lax/special.py, after XLA's
# math.cc), in the same operation order, so the same bits: a while loop over the whole
# array that runs until every enabled element has converged, each element's state frozen
# (`select`) once its own test fails.

_VALUE, _DERIVATIVE, _SAMPLE = "value", "derivative", "sample_derivative"


def _k(v, like):
    """The number `v` as a 0-d constant of `like`'s dtype."""
    return np.asarray(v, _aval(like).dtype)[()]


def _any(L, p):
    return L.reduce_or(p, tuple(range(_aval(p).ndim)))


def _or(L, *ps):
    out = ps[0]
    for p in ps[1:]:
        out = L.bitwise_or(out, p)
    return out


def _igamma_series(L, ax, x, a, enabled, mode):
    """P(a, x) (or its derivative in a, or the sample derivative) by the power series
    sum_n x^n / (a+1)...(a+n), each element stopping once its last term is within eps."""
    eps = _k(dtypes.finfo(_aval(x).dtype).eps, x)

    def body(vals):
        on, r, c, ans, xv, dc_da, dans_da = vals
        r = L.add(r, _k(1, r))
        dc_da = L.sub(L.mul(dc_da, L.div(xv, r)), L.div(L.mul(c, xv), L.mul(r, r)))
        dans_da = L.add(dans_da, dc_da)
        c = L.mul(c, L.div(xv, r))
        ans = L.add(ans, c)
        test = L.div(c, ans) if mode == _VALUE else L.abs(L.div(dc_da, dans_da))
        new = (r, c, ans, xv, dc_da, dans_da)
        return (L.bitwise_and(on, L.gt(test, eps)),
                *(L.select(on, n, o) for n, o in zip(new, vals[1:])))
    one, zero = L.full_like(a, 1), L.full_like(a, 0)
    vals = L.while_loop(core.raw(lambda v: _any(L, v[0])), core.raw(body),
                        (enabled, a, one, one, x, zero, zero))
    ans, dans_da = vals[3], vals[6]
    if mode == _VALUE:
        return L.div(L.mul(ans, ax), a)
    dlogax_da = L.sub(L.log(x), L.digamma(L.add(a, _k(1, a))))
    if mode == _DERIVATIVE:
        return L.div(L.mul(ax, L.add(L.mul(ans, dlogax_da), dans_da)), a)
    return L.div(L.mul(L.neg(L.add(dans_da, L.mul(ans, dlogax_da))), x), a)


def _igammac_fraction(L, ax, x, a, enabled, mode):
    """Q(a, x) (or minus its derivative in a, ...) by the continued fraction of Cephes'
    igamc, numerators and denominators carried (rescaled by eps past 1/eps) with their
    derivatives in a; at most 2000 steps."""
    eps = _k(dtypes.finfo(_aval(x).dtype).eps, x)

    def body(vals):
        (on, ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2,
         dpkm2, dqkm2, dpkm1, dqkm1, dans) = vals
        c, y, z = L.add(c, _k(1, c)), L.add(y, _k(1, y)), L.add(z, _k(2, z))
        yc = L.mul(y, c)
        pk = L.sub(L.mul(pkm1, z), L.mul(pkm2, yc))
        qk = L.sub(L.mul(qkm1, z), L.mul(qkm2, yc))
        nonzero = L.ne(qk, _k(0, qk))
        r = L.div(pk, qk)
        t = L.select(nonzero, L.abs(L.div(L.sub(ans, r), r)), L.full_like(r, 1))
        ans = L.select(nonzero, r, ans)
        dpk = L.add(L.sub(L.sub(L.mul(dpkm1, z), pkm1), L.mul(dpkm2, yc)), L.mul(pkm2, c))
        dqk = L.add(L.sub(L.sub(L.mul(dqkm1, z), qkm1), L.mul(dqkm2, yc)), L.mul(qkm2, c))
        dans_new = L.select(nonzero, L.div(L.sub(dpk, L.mul(ans, dqk)), qk), dans)
        grad_test = L.select(nonzero, L.abs(L.sub(dans_new, dans)), L.full_like(dans, 1))
        rescale = L.gt(L.abs(pk), L.reciprocal(eps))
        carried = [L.select(rescale, L.mul(v, eps), v)
                   for v in (pk, qk, pkm1, qkm1, dpkm1, dqkm1, dpk, dqk)]
        pkm1, qkm1, pkm2, qkm2, dpkm2, dqkm2, dpkm1, dqkm1 = carried
        test = t if mode == _VALUE else grad_test
        new = (ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2, dpkm2, dqkm2, dpkm1, dqkm1, dans_new)
        return (L.bitwise_and(on, L.gt(test, eps)),
                *(n if i == 4 else L.select(on, n, o)
                  for i, (n, o) in enumerate(zip(new, vals[1:]))))

    y = L.sub(_k(1, a), a)
    z = L.add(L.add(x, y), _k(1, x))
    pkm1 = L.add(x, _k(1, x))
    qkm1 = L.mul(z, x)
    ans = L.div(pkm1, qkm1)
    zero = L.full_like(x, 0)
    dqkm1 = L.neg(x)
    dans = L.div(L.sub(zero, L.mul(ans, dqkm1)), qkm1)
    vals = L.while_loop(
        core.raw(lambda v: L.bitwise_and(L.lt(v[5], _k(2000, v[5])), _any(L, v[0]))),
        core.raw(body),
        (enabled, ans, L.full_like(x, 1), y, z, _k(0, x), pkm1, qkm1, L.full_like(x, 1), x,
         zero, zero, zero, dqkm1, dans))
    ans = vals[1]
    if mode == _VALUE:
        return L.mul(ans, ax)
    dlogax_da = L.sub(L.log(x), L.digamma(a))
    if mode == _DERIVATIVE:
        return L.mul(ax, L.add(L.mul(ans, dlogax_da), vals[14]))
    return L.neg(L.mul(L.add(vals[14], L.mul(ans, dlogax_da)), x))


def _log_front(L, a, x):
    """log(x^a e^-x / Gamma(a)) and whether it underflows exp."""
    ax = L.sub(L.sub(L.mul(a, L.log(x)), x), L.lgamma(a))
    big = _k(dtypes.finfo(_aval(x).dtype).max, x)
    return ax, L.lt(ax, L.neg(L.log(big)))


def _igamma_value(L, a, x, upper):
    """P(a, x) (Q(a, x) if `upper`) with JAX's edges: NaN for a NaN, a < 0, x < 0 or
    a = x = 0; P(a, 0) = 0, P(a, inf) = 1, Q(0, x) = 0; and P(0, x) = 1 (SciPy's)."""
    is_nan = L.bitwise_or(L.ne(a, a), L.ne(x, x))
    x_inf = L.eq(x, _k(np.inf, x))
    a_zero, x_zero = L.eq(a, _k(0, a)), L.eq(x, _k(0, x))
    domain = _or(L, L.lt(x, _k(0, x)), L.lt(a, _k(0, a)), L.bitwise_and(a_zero, x_zero), is_nan)
    ax, underflow = _log_front(L, a, x)
    one = _k(1, a)
    if not upper:
        use_cf = L.bitwise_and(L.ge(x, _k(1, x)), L.gt(x, a))
        ax = L.exp(ax)
        on = L.bitwise_not(_or(L, x_zero, domain, underflow, x_inf))
        out = L.select(use_cf,
                       L.sub(one, _igammac_fraction(L, ax, x, a, L.bitwise_and(on, use_cf),
                                                    _VALUE)),
                       _igamma_series(L, ax, x, a, L.bitwise_and(on, L.bitwise_not(use_cf)),
                                      _VALUE))
        out = L.select(x_zero, L.full_like(a, 0), out)
        # P(0, x) = 1 - Q(0, x) = 1 for x > 0, as SciPy (JAX's series gives 0 / 0 = NaN
        # below x = 1: a value that differs on purpose, docs/coming_from_jax.md)
        out = L.select(L.bitwise_or(x_inf, a_zero), L.full_like(a, 1), out)
    else:
        use_series = L.bitwise_or(L.lt(x, _k(1, x)), L.lt(x, a))
        on = L.bitwise_not(_or(L, domain, underflow, x_inf, a_zero))
        ax = L.exp(ax)
        series = _igamma_series(L, ax, x, a, L.bitwise_and(on, use_series), _VALUE)
        frac = _igammac_fraction(L, ax, x, a, L.bitwise_and(on, L.bitwise_not(use_series)),
                                 _VALUE)
        out = L.select(use_series, L.sub(one, series), frac)
        out = L.select(L.bitwise_or(x_inf, a_zero), L.full_like(out, 0), out)
    return L.select(domain, L.full_like(a, np.nan), out)


def _igamma_da(L, a, x, mode):
    """dP/da (`_DERIVATIVE`) or d x / d a of a Gamma(a) sample x (`_SAMPLE`): 0 at
    x = 0, NaN for a <= 0, x < 0 or a NaN."""
    is_nan = L.bitwise_or(L.ne(a, a), L.ne(x, x))
    x_zero = L.eq(x, L.full_like(x, 0))
    domain = L.bitwise_or(L.lt(x, L.full_like(x, 0)), L.le(a, L.full_like(a, 0)))
    use_cf = L.bitwise_and(L.gt(x, L.full_like(x, 1)), L.gt(x, a))
    ax, underflow = _log_front(L, a, x)
    ax = L.exp(ax)
    on = L.bitwise_not(_or(L, x_zero, domain, underflow, is_nan))
    out = L.select(use_cf,
                   L.neg(_igammac_fraction(L, ax, x, a, L.bitwise_and(on, use_cf), mode)),
                   _igamma_series(L, ax, x, a, L.bitwise_and(on, L.bitwise_not(use_cf)), mode))
    out = L.select(x_zero, L.full_like(out, 0), out)
    return L.select(L.bitwise_or(domain, is_nan), L.full_like(a, np.nan), out)


def _betainc_value(L, a, b, x):
    """I_x(a, b) by the continued fraction DLMF 8.17.22 (modified Lentz, a fixed
    tolerance of eps / 2, at most 200 steps in float32 and 600 in float64, the whole
    array stepping together), on 1 - I_{1-x}(b, a) where x >= (a + 1) / (a + b + 2)."""
    dt = _aval(x).dtype
    fin = dtypes.finfo(dt)
    small = np.asarray(fin.eps / 2, dt)[()]
    shape = _aval(x).shape
    one, two = L.full_like(a, 1), L.full_like(a, 2.0)
    a_zero = L.bitwise_or(L.eq(a, L.full_like(a, 0)), L.eq(b, L.full_like(b, np.inf)))
    b_zero = L.bitwise_or(L.eq(b, L.full_like(b, 0)), L.eq(a, L.full_like(a, np.inf)))
    x_zero, x_one = L.eq(x, L.full_like(x, 0)), L.eq(x, L.full_like(x, 1))
    is_nan = _or(L, L.ne(a, a), L.ne(b, b), L.ne(x, x))
    to_zero = L.bitwise_or(L.bitwise_and(b_zero, L.bitwise_not(x_one)),
                           L.bitwise_and(a_zero, x_zero))
    to_one = L.bitwise_or(L.bitwise_and(a_zero, L.bitwise_not(x_zero)),
                          L.bitwise_and(b_zero, x_one))
    to_nan = _or(L, L.lt(a, L.full_like(a, 0)), L.lt(b, L.full_like(b, 0)),
                 L.lt(x, L.full_like(x, 0)), L.gt(x, L.full_like(x, 1)))
    to_nan = L.bitwise_or(to_nan, L.bitwise_or(L.bitwise_and(a_zero, b_zero), is_nan))
    rapid = L.lt(x, L.div(L.add(a, L.full_like(a, 1)),
                          L.add(L.add(a, b), L.full_like(b, 2.0))))
    a, b = L.select(rapid, a, b), L.select(rapid, b, a)
    x = L.select(rapid, x, L.sub(L.full_like(x, 1), x))

    def numerator(it):
        it = L.broadcast_in_dim(it, shape, ())
        even = L.eq(L.rem(it, L.full_like(it, 2)), L.full_like(it, 0))
        first = L.eq(it, L.full_like(it, 1))
        mi = L.div(L.sub(it, L.full_like(it, 1)), L.full_like(it, 2))
        m = L.convert_element_type(mi, dt)
        a2m = L.add(a, L.mul(two, m))
        at_zero = L.div(L.mul(L.neg(L.add(a, b)), x), L.add(a, one))
        even_n = L.select(L.eq(mi, L.full_like(mi, 0)), at_zero,
                          L.div(L.mul(L.mul(L.neg(L.add(a, m)), L.add(L.add(a, b), m)), x),
                                L.mul(a2m, L.add(a2m, one))))
        odd_n = L.div(L.mul(L.mul(m, L.sub(b, m)), x), L.mul(L.sub(a2m, one), a2m))
        return L.select(first, L.full_like(x, 1.0), L.select(even, even_n, odd_n))

    def body(vals):
        it, _, cv, dv, h = vals
        pn = numerator(it)
        pd = L.full_like(x, 1)
        c = L.add(pd, L.div(pn, cv))
        c = L.select(L.lt(L.abs(c), small), L.full_like(c, small), c)
        d = L.add(pd, L.mul(pn, dv))
        d = L.select(L.lt(L.abs(d), L.full_like(c, small)), L.full_like(c, small), d)
        d = L.reciprocal(d)
        delta = L.mul(c, d)
        return (L.add(it, np.int32(1)), _any(L, L.ge(L.abs(L.sub(delta, _k(1, delta))), small)),
                c, d, L.mul(h, delta))
    h0 = L.broadcast_in_dim(small, shape, ())
    n_iter = np.int32(200 if dt == np.float32 else 600)
    frac = L.while_loop(
        core.raw(lambda v: L.bitwise_and(L.lt(v[0], n_iter), v[1])), core.raw(body),
        (np.int32(1), np.bool_(True), h0, L.full_like(h0, 0), h0))[4]
    lbeta_small_a = L.sub(L.lgamma(b), L.lgamma(L.add(a, b)))
    lbeta = L.add(L.lgamma(a), lbeta_small_a)
    factor = L.select(L.lt(a, L.full_like(a, np.asarray(fin.tiny * 2, dt))),
                      L.exp(L.sub(L.mul(L.log1p(L.neg(x)), b), lbeta_small_a)),
                      L.div(L.exp(L.sub(L.add(L.mul(L.log(x), a), L.mul(L.log1p(L.neg(x)), b)),
                                        lbeta)), a))
    out = L.mul(frac, factor)
    out = L.select(rapid, out, L.sub(L.full_like(out, 1), out))
    out = L.select(to_zero, L.full_like(a, 0), out)
    out = L.select(to_one, L.full_like(a, 1), out)
    return L.select(to_nan, L.full_like(a, np.nan), out)


def widened(fn, *args):
    """`fn(*args)` on float16 / bfloat16 operands computed in float32 and rounded back
    (JAX's `_up_and_broadcast`)."""
    L = lax_ops()
    dt = _aval(args[0]).dtype
    if dt not in (dtypes.float16, dtypes.bfloat16):
        return fn(L, *args)
    out = fn(L, *[L.convert_element_type(v, np.float32) for v in args])
    return L.convert_element_type(out, dt)


def _xla_impl(name):
    """The eager rule: the lowering run by XLA (a NumPy copy could not give XLA's bits)."""
    def impl(*args, **params):
        return np.asarray(core.eager_backend(_PRIMS[name], list(args), params))
    return impl


def _lowering(fn):
    def rule(ctx, *args):
        out = ctx.avals_out[0]
        full = [ctx.broadcast(x, a, out.update(dtype=a.dtype)) for x, a in zip(args, ctx.avals_in)]
        res, = lower_inline(ctx, lambda *xs: [widened(fn, *xs)], [out] * len(args), full)
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


def _declare(name, fn, n_params=None, log_density=None, error=None):
    p = core.new_primitive(name)
    register(p, impl=_xla_impl(name), abstract_eval=_abstract(name), lowering=_lowering(fn))
    if log_density is not None:
        register(p, jvp=_x_density(name, log_density, n_params, error))
    defbroadcasting(p)
    _PRIMS[name] = p
    return p


_PRIMS: dict = {}
igamma_p = _declare("igamma", lambda L, a, x: _igamma_value(L, a, x, False), 1,
                    _log_gamma_density)
igammac_p = _declare("igammac", lambda L, a, x: _igamma_value(L, a, x, True), 1,
                     _log_gamma_density)
betainc_p = _declare("betainc", _betainc_value, 2, _log_beta_density, _beta_ab_error)
igamma_grad_a_p = _declare("igamma_grad_a", lambda L, a, x: _igamma_da(L, a, x, _DERIVATIVE))
mark_unsupported(igamma_grad_a_p, "jvp", "JAX defines no derivative of igamma_grad_a")


def sample_grad(a, x):
    """d x / d a of samples x ~ Gamma(a, 1) (same-shape floating operands): JAX's
    `random_gamma_grad`, float16 / bfloat16 computed in float32."""
    return widened(lambda L, a, x: _igamma_da(L, a, x, _SAMPLE), a, x)


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


bessel_i0e_p = unop("bessel_i0e", lambda x: _xla_impl("bessel_i0e")(x), _i0e_lowering, FLOAT)
_PRIMS["bessel_i0e"] = bessel_i0e_p
defjvp(bessel_i0e_p, _i0e_jvp)
bessel_i1e_p = unop("bessel_i1e", lambda x: _xla_impl("bessel_i1e")(x), "chlo.bessel_i1e",
                    FLOAT)
_PRIMS["bessel_i1e"] = bessel_i1e_p
defjvp(bessel_i1e_p, _i1e_jvp)


def bessel_i0e(x):
    """`lax.bessel_i0e`: exp(-|x|) I_0(x), elementwise."""
    return bind(bessel_i0e_p, *_float_args("bessel_i0e", x))


def bessel_i1e(x):
    """`lax.bessel_i1e`: exp(-|x|) I_1(x), elementwise."""
    return bind(bessel_i1e_p, *_float_args("bessel_i1e", x))
