"""Elementwise primitives: exponentials, logarithms and roots, trigonometric and
hyperbolic functions, special functions (erf, lgamma, ...), complex parts, pow,
atan2 and nextafter; and, re-exported, the whole elementwise family: `arithmetic`
(neg, add, mul, div, integer_pow, ...) and `comparisons` (eq, lt, logic, bits).

One block per primitive: the declaration (`base.unop`/`base.binop`: NumPy reference
impl, abstract eval, StableHLO/CHLO lowering, the batch rule and the default printed
form `lax.<name>(...)`), the jvp/transpose rule (`base.defjvp`/`deflinear`/...) and
the `lax` wrapper function (`astjax.lax` re-exports it). A new elementwise primitive
is one block here plus its tests. Rule bodies use the wrappers on Tracers, so `bind`
stages them into the running pass's builder.
"""
from __future__ import annotations

import math

import numpy as np

from .. import core, dtypes
from ..errors import DTypeError, DerivativeValueError
from ..precision_config import AccuracyMode, accuracy_attribute, check_accuracy
from .base import (ANY, FLOAT, INEXACT, as_operand, bcast_operand, binop, defjvp, deflinear,
                   is_zero, lax_ops, mark_unsupported, match_scalars, tangent_aval,
                   unbcast_operand, unop)
from .arithmetic import (Zero, _c, _real_dtype, add, div, eq, integer_pow, is_undefined, mul,
                         neg, sub)
# the rest of the elementwise family, re-exported (`elementwise.add_p`, `lax.add`, ...)
from .comparisons import (and_p, bitwise_and, bitwise_not, bitwise_or,  # noqa: F401
                          bitwise_xor, clz, clz_p, eq_p, eq_to_p, ge, ge_p, gt, gt_p, is_finite,
                          is_finite_p, le, le_p, le_to_p, lt, lt_p, lt_to_p, ne, ne_p, not_p, or_p,
                          population_count, population_count_p, shift_left, shift_left_p,
                          shift_right_arithmetic, shift_right_arithmetic_p,
                          shift_right_logical, shift_right_logical_p, xor_p)
from .arithmetic import (RoundingMethod, abs, abs_p, add_any, add_any_p, add_p,  # noqa: F401
                         ceil, ceil_p, div_p, floor, floor_p, integer_pow_p, max, max_p, min,
                         min_p, mul_p, neg_p, reciprocal, rem, rem_p, round, round_p, sign,
                         sign_p, square, square_p, sub_p)

# --------------------------------------------------------------- NumPy references
_vec = np.vectorize


def _np_special(name):
    """NumPy reference for special functions (float64 accuracy, scipy-free)."""
    import math as m
    return _vec(getattr(m, name), otypes=[np.float64])


def _erf_inv(x):
    # Newton on erf from a good initial guess; float64 accurate.
    x = np.asarray(x, np.float64)
    w = -np.log((1.0 - x) * (1.0 + x))
    y = np.where(w < 5.0, _erfinv_small(w) * x, _erfinv_large(w) * x)
    erf = _np_special("erf")
    for _ in range(3):
        err = erf(y) - x
        y = y - err / (2.0 / np.sqrt(np.pi) * np.exp(-y * y))
    return np.where(np.abs(x) == 1, np.sign(x) * np.inf, y)


def _erfinv_small(w):
    w = w - 2.5
    p = 2.81022636e-08
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
              -0.00125372503, -0.00417768164, 0.246640727, 1.50140941):
        p = c + p * w
    return p


def _erfinv_large(w):
    w = np.sqrt(w) - 3.0
    p = -0.000200214257
    for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
              -0.0076224613, 0.00943887047, 1.00167406, 2.83297682):
        p = c + p * w
    return p


def _digamma(x):
    x = np.asarray(x, np.float64)
    res = np.zeros_like(x)
    reflect = x < 0.5
    xr = np.where(reflect, 1.0 - x, x)
    acc = np.zeros_like(xr)
    while True:
        small = xr < 6.0
        if not small.any():
            break
        acc = acc - np.where(small, 1.0 / xr, 0.0)
        xr = np.where(small, xr + 1.0, xr)
    f = 1.0 / (xr * xr)
    series = np.log(xr) - 0.5 / xr - f * (1 / 12 - f * (1 / 120 - f * (1 / 252 - f * (
        1 / 240 - f * (1 / 132)))))
    res = acc + series
    with np.errstate(all="ignore"):
        res = np.where(reflect, res - np.pi / np.tan(np.pi * x), res)
        res = np.where((x <= 0) & (x == np.floor(x)), np.nan, res)
    return res


def _cbrt(x):
    return np.cbrt(x)


def _logistic(x):
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-x))


def _chlo(name):
    return f"chlo.{name}"


# `accuracy=` (lax.AccuracyMode / lax.Tolerance): which operands the op's
# result_accuracy attribute is emitted for, as JAX lowers it (complex sin/cos are
# expanded into real operations, logistic into exp: neither carries it)
_ANY_OPERAND = lambda aval: True  # noqa: E731
_REAL_OPERAND = lambda aval: np.dtype(aval.dtype).kind != "c"  # noqa: E731
_NO_OPERAND = lambda aval: False  # noqa: E731


def _accuracy(name, accuracy):
    """The `accuracy` param of lax.`name`'s equation (None too, as JAX's)."""
    return {"accuracy": check_accuracy(accuracy, name)}


def _exp2_lowering(ctx, x, accuracy=None):
    a = ctx.avals_in[0]
    log2 = ctx.broadcast(ctx.constant(math.log(2), a.update(shape=())), a.update(shape=()), a)
    return ctx.op1("stablehlo.exponential", [ctx.op1("stablehlo.multiply", [x, log2])],
                   attrs=accuracy_attribute(accuracy))


# --------------------------------------------------------------- exponentials, roots


exp_p = unop("exp", np.exp, "stablehlo.exponential", INEXACT, accuracy=_ANY_OPERAND)
defjvp(exp_p, lambda t, y, x, accuracy=None: mul(t, y))


def exp(x, *, accuracy=None):
    """e ** x, elementwise. `accuracy`: None, a lax.AccuracyMode or lax.Tolerance."""
    return exp_p.bind(as_operand(x), **_accuracy("exp", accuracy))


exp2_p = unop("exp2", np.exp2, _exp2_lowering, INEXACT, accuracy=_ANY_OPERAND)
defjvp(exp2_p, lambda t, y, x, accuracy=None: mul(log(_c(x, 2)), mul(t, y)))


def exp2(x, *, accuracy=None):
    """2 ** x, elementwise. `accuracy`: None, a lax.AccuracyMode or lax.Tolerance."""
    return exp2_p.bind(as_operand(x), **_accuracy("exp2", accuracy))


log_p = unop("log", np.log, "stablehlo.log", INEXACT, accuracy=_ANY_OPERAND)
defjvp(log_p, lambda t, y, x, accuracy=None: div(t, x))


def log(x, *, accuracy=None):
    """The natural logarithm, elementwise. `accuracy`: as `exp`'s."""
    return log_p.bind(as_operand(x), **_accuracy("log", accuracy))


log1p_p = unop("log1p", np.log1p, "stablehlo.log_plus_one", INEXACT, accuracy=_ANY_OPERAND)
defjvp(log1p_p, lambda t, y, x, accuracy=None: div(t, add(x, _c(x, 1))))


def log1p(x, *, accuracy=None):
    """log(1 + x), accurate near 0. `accuracy`: as `exp`'s."""
    return log1p_p.bind(as_operand(x), **_accuracy("log1p", accuracy))


expm1_p = unop("expm1", np.expm1, "stablehlo.exponential_minus_one", INEXACT,
               accuracy=_ANY_OPERAND)
# under AccuracyMode.HIGHEST the derivative is the accurate exp, not expm1 + 1 (JAX)
defjvp(expm1_p, lambda t, y, x, accuracy=None: mul(t, exp(x, accuracy=accuracy))
       if accuracy is AccuracyMode.HIGHEST else mul(t, add(y, _c(x, 1))))


def expm1(x, *, accuracy=None):
    """e ** x - 1, accurate near 0. `accuracy`: as `exp`'s."""
    return expm1_p.bind(as_operand(x), **_accuracy("expm1", accuracy))


sqrt_p = unop("sqrt", np.sqrt, "stablehlo.sqrt", INEXACT, accuracy=_ANY_OPERAND)
defjvp(sqrt_p, lambda t, y, x, accuracy=None: mul(t, div(_c(x, 0.5), y)))


def sqrt(x, *, accuracy=None):
    """The square root, elementwise. `accuracy`: as `exp`'s."""
    return sqrt_p.bind(as_operand(x), **_accuracy("sqrt", accuracy))


rsqrt_p = unop("rsqrt", lambda x: 1.0 / np.sqrt(x), "stablehlo.rsqrt", INEXACT,
               accuracy=_ANY_OPERAND)
defjvp(rsqrt_p, lambda t, y, x, accuracy=None: mul(t, mul(div(y, x), _c(x, -0.5))))


def rsqrt(x, *, accuracy=None):
    """1 / sqrt(x), elementwise. `accuracy`: as `exp`'s."""
    return rsqrt_p.bind(as_operand(x), **_accuracy("rsqrt", accuracy))


cbrt_p = unop("cbrt", _cbrt, "stablehlo.cbrt", accuracy=_ANY_OPERAND)
defjvp(cbrt_p, lambda t, y, x, accuracy=None: mul(t, mul(integer_pow(y, -2), _c(x, 1 / 3))))


def cbrt(x, *, accuracy=None):
    """The real cube root, elementwise. `accuracy`: as `exp`'s."""
    return cbrt_p.bind(as_operand(x), **_accuracy("cbrt", accuracy))


# ------------------------------------------------------------ trigonometric, hyperbolic


def _trig_lowering(hlo, cosine):
    """sin / cos: stablehlo's op on a real operand; on a complex one JAX's expansion
    (not stablehlo's complex sine, whose bits differ) from the real sine, cosine and
    expm1 of the parts: 2 sinh(b) = expm1(b) - expm1(-b), 2 cosh(b) = expm1(b) +
    expm1(-b) + 2, a zero real part giving an exact zero real (sin) / imaginary (cos)
    part, so that an infinite sinh or cosh makes no NaN there."""
    def lowering(ctx, x, accuracy=None):
        a = ctx.avals_in[0]
        if np.dtype(a.dtype).kind != "c":
            return ctx.op1(hlo, [x], attrs=accuracy_attribute(accuracy) if accuracy else None)
        r = a.update(dtype=_real_dtype(a.dtype))

        def op(name, *xs):
            return ctx.op1(f"stablehlo.{name}", list(xs), r)

        def const(v):
            return ctx.broadcast(ctx.constant(v, r.update(shape=())), r.update(shape=()), r)
        re, im = op("real", x), op("imag", x)
        re_zero = ctx.op1("stablehlo.compare", [re, const(0)], r.update(dtype=dtypes.bool_),
                          attrs={"comparison_direction": "#stablehlo<comparison_direction EQ>",
                                 "compare_type": "#stablehlo<comparison_type FLOAT>"})
        sn, cs = op("sine", re), op("cosine", re)
        e1, e2 = op("exponential_minus_one", im), op("exponential_minus_one", op("negate", im))
        sinh = op("divide", op("subtract", e1, e2), const(2))
        cosh = op("divide", op("add", op("add", e1, e2), const(2)), const(2))
        if cosine:
            p, q = op("multiply", cs, cosh), op("multiply", op("negate", sn), sinh)
            parts = (p, const(0))
        else:
            p, q = op("multiply", sn, cosh), op("multiply", cs, sinh)
            parts = (const(0), q)
        return ctx.op1("stablehlo.select", [re_zero, ctx.op1("stablehlo.complex", list(parts)),
                                            ctx.op1("stablehlo.complex", [p, q])])
    return lowering


sin_p = unop("sin", np.sin, _trig_lowering("stablehlo.sine", False), INEXACT,
             accuracy=_REAL_OPERAND)
defjvp(sin_p, lambda t, y, x, accuracy=None: mul(t, cos(x, accuracy=accuracy)))


def sin(x, *, accuracy=None):
    """The sine, elementwise. `accuracy`: as `exp`'s."""
    return sin_p.bind(as_operand(x), **_accuracy("sin", accuracy))


cos_p = unop("cos", np.cos, _trig_lowering("stablehlo.cosine", True), INEXACT,
             accuracy=_REAL_OPERAND)
defjvp(cos_p, lambda t, y, x, accuracy=None: neg(mul(t, sin(x, accuracy=accuracy))))


def cos(x, *, accuracy=None):
    """The cosine, elementwise. `accuracy`: as `exp`'s."""
    return cos_p.bind(as_operand(x), **_accuracy("cos", accuracy))


tan_p = unop("tan", np.tan, "stablehlo.tan", INEXACT, accuracy=_ANY_OPERAND)
defjvp(tan_p, lambda t, y, x, accuracy=None: mul(t, add(_c(x, 1), square(y))))


def tan(x, *, accuracy=None):
    """The tangent, elementwise. `accuracy`: as `exp`'s."""
    return tan_p.bind(as_operand(x), **_accuracy("tan", accuracy))


asin_p = unop("asin", np.arcsin, _chlo("asin"), INEXACT)
defjvp(asin_p, lambda t, y, x: mul(t, rsqrt(sub(_c(x, 1), square(x)))))


def asin(x):
    """The inverse sine, elementwise."""
    return asin_p.bind(as_operand(x))


acos_p = unop("acos", np.arccos, _chlo("acos"), INEXACT)
defjvp(acos_p, lambda t, y, x: neg(mul(t, rsqrt(sub(_c(x, 1), square(x))))))


def acos(x):
    """The inverse cosine, elementwise."""
    return acos_p.bind(as_operand(x))


atan_p = unop("atan", np.arctan, _chlo("atan"), INEXACT)
defjvp(atan_p, lambda t, y, x: div(t, add(_c(x, 1), square(x))))


def atan(x):
    """The inverse tangent, elementwise."""
    return atan_p.bind(as_operand(x))


sinh_p = unop("sinh", np.sinh, _chlo("sinh"), INEXACT)
defjvp(sinh_p, lambda t, y, x: mul(t, cosh(x)))


def sinh(x):
    """The hyperbolic sine, elementwise."""
    return sinh_p.bind(as_operand(x))


cosh_p = unop("cosh", np.cosh, _chlo("cosh"), INEXACT)
defjvp(cosh_p, lambda t, y, x: mul(t, sinh(x)))


def cosh(x):
    """The hyperbolic cosine, elementwise."""
    return cosh_p.bind(as_operand(x))


tanh_p = unop("tanh", np.tanh, "stablehlo.tanh", INEXACT, accuracy=_ANY_OPERAND)
# under AccuracyMode.HIGHEST: 4 logistic(2x) logistic(-2x), no cancellation in 1 - y**2
defjvp(tanh_p, lambda t, y, x, accuracy=None: mul(t, mul(_c(x, 4), mul(
    logistic(mul(_c(x, 2), x), accuracy=accuracy), logistic(mul(_c(x, -2), x),
                                                             accuracy=accuracy))))
       # (JAX's form, operation for operation: its rounding is JAX's)
       if accuracy is AccuracyMode.HIGHEST else mul(add(t, mul(t, y)), sub(_c(x, 1), y)))


def tanh(x, *, accuracy=None):
    """The hyperbolic tangent, elementwise. `accuracy`: as `exp`'s."""
    return tanh_p.bind(as_operand(x), **_accuracy("tanh", accuracy))


asinh_p = unop("asinh", np.arcsinh, _chlo("asinh"), INEXACT)
defjvp(asinh_p, lambda t, y, x: mul(t, rsqrt(add(square(x), _c(x, 1)))))


def asinh(x):
    """The inverse hyperbolic sine, elementwise."""
    return asinh_p.bind(as_operand(x))


acosh_p = unop("acosh", np.arccosh, _chlo("acosh"), INEXACT)
# x**2 - 1 as JAX's (not (x - 1)(x + 1)): +0 at x = -1, where the derivative is +inf
defjvp(acosh_p, lambda t, y, x: mul(t, rsqrt(sub(square(x), _c(x, 1)))))


def acosh(x):
    """The inverse hyperbolic cosine, elementwise."""
    return acosh_p.bind(as_operand(x))


atanh_p = unop("atanh", np.arctanh, _chlo("atanh"), INEXACT)
defjvp(atanh_p, lambda t, y, x: mul(reciprocal(add(_c(x, 1), x)), div(t, sub(_c(x, 1), x))))


def atanh(x):
    """The inverse hyperbolic tangent, elementwise."""
    return atanh_p.bind(as_operand(x))


logistic_p = unop("logistic", _logistic, "stablehlo.logistic", INEXACT, accuracy=_NO_OPERAND)
# under AccuracyMode.HIGHEST: y logistic(-x), no cancellation in 1 - y
defjvp(logistic_p, lambda t, y, x, accuracy=None: mul(t, mul(y, logistic(neg(x))))
       if accuracy is AccuracyMode.HIGHEST else mul(t, mul(y, sub(_c(x, 1), y))))


def logistic(x, *, accuracy=None):
    """1 / (1 + e ** -x), elementwise. `accuracy`: accepted and checked as `exp`'s;
    like JAX's lowering, the computation does not carry it."""
    return logistic_p.bind(as_operand(x), **_accuracy("logistic", accuracy))

# ------------------------------------------------------------------ special functions


erf_p = unop("erf", _np_special("erf"), _chlo("erf"))
defjvp(erf_p, lambda t, y, x: mul(_c(x, 2 / math.sqrt(math.pi)),
                                    mul(t, exp(neg(square(x))))))


def erf(x):
    """The error function, elementwise."""
    return erf_p.bind(as_operand(x))


erfc_p = unop("erfc", _np_special("erfc"), _chlo("erfc"))
defjvp(erfc_p, lambda t, y, x: mul(_c(x, -2 / math.sqrt(math.pi)),
                                     mul(t, exp(neg(square(x))))))


def erfc(x):
    """1 - erf(x), elementwise."""
    return erfc_p.bind(as_operand(x))


erf_inv_p = unop("erf_inv", _erf_inv, _chlo("erf_inv"))
defjvp(erf_inv_p, lambda t, y, x: mul(_c(x, math.sqrt(math.pi) / 2),
                                        mul(t, exp(square(y)))))


def erf_inv(x):
    """The inverse of erf, elementwise."""
    return erf_inv_p.bind(as_operand(x))


lgamma_p = unop("lgamma", _np_special("lgamma"), _chlo("lgamma"))
defjvp(lgamma_p, lambda t, y, x: mul(t, digamma(x)))


def lgamma(x):
    """log |Gamma(x)|, elementwise."""
    return lgamma_p.bind(as_operand(x))


digamma_p = unop("digamma", _digamma, _chlo("digamma"))
defjvp(digamma_p, lambda t, y, x: mul(t, polygamma(_c(x, 1), x)))


def digamma(x):
    """The derivative of lgamma, elementwise."""
    return digamma_p.bind(as_operand(x))


# Bernoulli numbers B_2j / (2j)! of the Euler-Maclaurin tail of the Hurwitz zeta
_EM = (1 / 12, -1 / 720, 1 / 30240, -1 / 1209600, 1 / 47900160, -691 / 1307674368000)


def _hurwitz_zeta(s, z):
    """sum_k (z + k)^-s in float64 (NumPy reference): the terms while z + k < 10, then
    the Euler-Maclaurin tail."""
    s, z = np.broadcast_arrays(np.asarray(s, np.float64), np.asarray(z, np.float64))
    with np.errstate(all="ignore"):
        acc = np.zeros_like(z)
        while True:
            small = z < 10
            if not small.any():
                break
            acc = acc + np.where(small, z ** -s, 0.0)
            z = np.where(small, z + 1, z)
        tail = z ** (1 - s) / (s - 1) + 0.5 * z ** -s
        rising = s.copy()  # s (s + 1) ... (s + 2j - 2)
        for j, c in enumerate(_EM):
            tail = tail + c * rising * z ** (-s - 2 * j - 1)
            rising = rising * (s + 2 * j + 1) * (s + 2 * j + 2)
    return acc + tail


def _polygamma(m, x):
    """psi^(m)(x) = (-1)^(m+1) m! zeta(m+1, x) for integer m >= 1 (digamma for m = 0),
    NaN for other m."""
    m, x = np.broadcast_arrays(np.asarray(m, np.float64), np.asarray(x, np.float64))
    out = np.full(x.shape, np.nan)
    whole = (m == np.floor(m)) & (m >= 0)
    out[whole & (m == 0)] = _digamma(x[whole & (m == 0)])
    pos = whole & (m >= 1)
    n, z = m[pos], x[pos]
    with np.errstate(all="ignore"):
        fact = _vec(math.gamma, otypes=[np.float64])(n + 1)
        out[pos] = np.where(n % 2 == 1, 1.0, -1.0) * fact * _hurwitz_zeta(n + 1, z)
    return out


def _polygamma_m(t, y, m, x):
    raise DerivativeValueError("the derivative of polygamma with respect to m is not "
                               "supported (JAX raises ValueError too)",
                               hint="differentiate with respect to x only (m is an order)")


polygamma_p = binop("polygamma", _polygamma, _chlo("polygamma"), FLOAT)
defjvp(polygamma_p, _polygamma_m, lambda t, y, m, x: mul(t, polygamma(add(m, _c(m, 1)), x)))


def polygamma(m, x):
    """The m-th derivative of digamma at x, elementwise (m a whole number)."""
    return polygamma_p.bind(*match_scalars(m, x))

# ------------------------------------------------------------------- complex parts


def _complex_only(name):
    def check(x):  # JAX: the parts of complex values only
        if not dtypes.issubdtype(x.dtype, np.complexfloating):
            raise DTypeError(f"`{name}` needs a complex operand, got {x.str_short(True)}",
                             hint=f"jnp.{name} also accepts real values")
    return check


real_p = unop("real", np.real, "stablehlo.real", ANY, out_dtype=_real_dtype,
              check=_complex_only("real"))
# the zero part is strongly typed, as JAX's (a NumPy zero): the cotangent is not weak
deflinear(real_p, lambda ct, x: [Zero(x.aval) if is_zero(ct) else complex(
    ct, lax_ops().full_like(ct, 0, ct.dtype))])


def real(x):
    """The real part of a complex value, elementwise."""
    return real_p.bind(as_operand(x))


imag_p = unop("imag", np.imag, "stablehlo.imag", ANY, out_dtype=_real_dtype,
              check=_complex_only("imag"))
deflinear(imag_p, lambda ct, x: [Zero(x.aval) if is_zero(ct) else complex(
    lax_ops().full_like(ct, 0, ct.dtype), neg(ct))])


def imag(x):
    """The imaginary part of a complex value, elementwise."""
    return imag_p.bind(as_operand(x))


def _complex_dtype(dt):
    return dtypes.complex128 if np.dtype(dt) in (dtypes.float64, dtypes.complex128) \
        else dtypes.complex64


def _conj_check(x):
    if x.dtype not in (dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128):
        raise DTypeError(f"`conj` needs a float32, float64 or complex operand, got "
                         f"{x.str_short(True)}")


def _conj_lowering(ctx, x):
    # conj(x) = re(x) - i im(x); a real x is x + 0i (JAX: conj of a real value is complex)
    a = ctx.avals_in[0]
    r = a.update(dtype=_real_dtype(a.dtype))
    if dtypes.issubdtype(a.dtype, np.complexfloating):
        re, im = ctx.op1("stablehlo.real", [x], r), ctx.op1("stablehlo.imag", [x], r)
        im = ctx.op1("stablehlo.negate", [im], r)
    else:
        re, im = x, ctx.broadcast(ctx.constant(0, r.update(shape=())), r.update(shape=()), r)
    return ctx.op1("stablehlo.complex", [re, im])


conj_p = unop("conj", np.conj, _conj_lowering, INEXACT, out_dtype=_complex_dtype,
              check=_conj_check)
deflinear(conj_p, lambda ct, x: [Zero(x.aval) if is_zero(ct) else conj(ct)
                                 if dtypes.issubdtype(x.aval.dtype, np.complexfloating)
                                 else real(ct)])


def conj(x):
    """The complex conjugate, elementwise (complex also for a real x, as JAX)."""
    return conj_p.bind(as_operand(x))


def _complex_check(x, y):
    if x.dtype not in (dtypes.float32, dtypes.float64):
        raise DTypeError(f"`complex` needs float32 or float64 parts, got {x.str_short(True)}")


def _complex_transpose(ct, x, y):
    """JAX's convention (transpose, not adjoint, as for every complex-linear map):
    the cotangent of x + i y is (real(ct), -imag(ct)), consistent with `imag`'s
    transpose `complex(0, -ct)`."""
    if is_zero(ct):
        return [Zero(tangent_aval(x)), Zero(tangent_aval(y))]
    return [unbcast_operand(real(ct), tangent_aval(x)) if is_undefined(x) else None,
            unbcast_operand(neg(imag(ct)), tangent_aval(y)) if is_undefined(y) else None]


complex_p = binop("complex", lambda x, y: x + 1j * y, "stablehlo.complex", FLOAT,
                  out_dtype=lambda d: dtypes.complex128 if d == dtypes.float64 else dtypes.complex64,
                  check=_complex_check)
deflinear(complex_p, _complex_transpose)


def complex(x, y):  # noqa: A001
    """x + i y from float32/float64 parts."""
    return complex_p.bind(*match_scalars(x, y))

def _pow_jvp_x(t, z, x, y):
    # d/dx x**y = y * x**(y-1), JAX's form: for a floating y as it stands (at x = 0,
    # y = 0 that is 0 * inf = NaN, as JAX's); an integer y counts in x's dtype and its
    # zeros give 0 (d/dx x**0 = 0, at x = 0 too)
    if tangent_aval(y).dtype == tangent_aval(x).dtype:
        return mul(t, bcast_operand(mul(y, pow(x, sub(y, _c(y, 1)))), tangent_aval(z).shape))
    lax = lax_ops()
    shape = tangent_aval(z).shape
    xb, yb = bcast_operand(x, shape), bcast_operand(_as_base(y, x), shape)
    zero = eq(yb, _c(yb, 0))
    d = lax.select(zero, lax.full_like(yb, 0),
                   mul(lax.select(zero, lax.full_like(yb, 1), yb), pow(xb, sub(yb, _c(yb, 1)))))
    return mul(t, d)


def _as_base(y, x):
    dt = tangent_aval(x).dtype
    return y if tangent_aval(y).dtype == dt else lax_ops().convert_element_type(y, dt)


def _pow_jvp_y(t, z, x, y):
    # d/dy x**y = log(x) * x**y, JAX's form: log of x with its zeros replaced by ones
    # (0 where x == 0 and y >= 0)
    lax = lax_ops()
    xb = bcast_operand(x, tangent_aval(z).shape)
    return mul(t, mul(log(lax.select(eq(xb, _c(x, 0)), lax.full_like(xb, 1), xb)), z))


def _pow_check(x, y):
    # JAX's dtype rule: a floating or complex base; the exponent of the base's dtype or
    # of an integer dtype (the result has the base's dtype)
    if not dtypes.is_inexact(x.dtype) or not (y.dtype == x.dtype or dtypes.is_int(y.dtype)):
        raise DTypeError(f"`pow` needs a floating-point or complex base and an exponent of "
                         f"its dtype or an integer dtype, got {x.str_short(True)} and "
                         f"{y.str_short(True)}")


def _pow_lowering(ctx, x, y):
    out = ctx.avals_out[0]
    if ctx.avals_in[1].dtype != out.dtype:  # an integer exponent, in the base's dtype
        y = ctx.op1("stablehlo.convert", [y], out)
    return ctx.op1("stablehlo.power", [x, y])


pow_p = binop("pow", np.power, _pow_lowering, ANY, same_dtype=False, check=_pow_check)
defjvp(pow_p, _pow_jvp_x, _pow_jvp_y)


def pow(x, y):  # noqa: A001
    """x ** y, elementwise: a floating or complex base, an exponent of its dtype or of
    an integer dtype."""
    x, y = as_operand(x), as_operand(y)
    xw, yw = dtypes.is_weak_scalar(x), dtypes.is_weak_scalar(y)
    if yw and not xw and type(y) is int:
        return pow_p.bind(x, y)  # a Python int exponent stays an integer
    if xw and not yw and type(x) is not int and dtypes.is_int(core.get_aval(y).dtype):
        # a Python float base of an integer exponent keeps its own (weak) dtype
        return pow_p.bind(core.WeakConst(np.asarray(x, dtypes.python_scalar_dtype(x))), y)
    return pow_p.bind(*match_scalars(x, y))


def _atan2_x(t, z, x, y):
    return mul(t, div(y, add(square(x), square(y))))


def _atan2_y(t, z, x, y):
    return mul(t, neg(div(x, add(square(x), square(y)))))


def _np_atan2(x, y):
    # complex operands: StableHLO's definition, -i log((y + i x) / sqrt(x^2 + y^2))
    if not np.iscomplexobj(x):
        return np.arctan2(x, y)
    return -1j * np.log((y + 1j * x) / np.sqrt(x * x + y * y))


atan2_p = binop("atan2", _np_atan2, "stablehlo.atan2", INEXACT)
defjvp(atan2_p, _atan2_x, _atan2_y)


def atan2(x, y):
    """The angle of the point (y, x) -- atan(x / y) in the right quadrant; complex
    operands too, as JAX's (StableHLO's complex atan2)."""
    return atan2_p.bind(*match_scalars(x, y))


nextafter_p = binop("nextafter", np.nextafter, _chlo("next_after"), FLOAT)
mark_unsupported(nextafter_p, "jvp", "nextafter has no derivative (as in JAX)")


def nextafter(x1, x2):
    """The next representable value after x1 towards x2."""
    return nextafter_p.bind(*match_scalars(x1, x2))

# ------------------------------------------------------------ the elementwise tables
# Every elementwise primitive by name (tests walk them).

UNARY = {p.name: p for p in [neg_p, sign_p, floor_p, ceil_p, round_p, abs_p, exp_p, exp2_p,
                             log_p, log1p_p, expm1_p, sqrt_p, rsqrt_p, cbrt_p, sin_p, cos_p,
                             tan_p, asin_p, acos_p, atan_p, sinh_p, cosh_p, tanh_p, asinh_p,
                             acosh_p, atanh_p, logistic_p, erf_p, erfc_p, erf_inv_p, lgamma_p,
                             digamma_p, is_finite_p, not_p, population_count_p, clz_p,
                             real_p, imag_p, conj_p, integer_pow_p, square_p]}
BINARY = {p.name: p for p in [add_p, sub_p, mul_p, div_p, rem_p, pow_p, max_p, min_p, atan2_p,
                              nextafter_p, polygamma_p, and_p, or_p, xor_p, shift_left_p,
                              shift_right_arithmetic_p, shift_right_logical_p, eq_p, ne_p,
                              lt_p, le_p, gt_p, ge_p, add_any_p, complex_p, eq_to_p, le_to_p,
                              lt_to_p]}
