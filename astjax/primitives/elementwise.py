"""Elementwise primitives: unary math, binary arithmetic, comparisons, logic, bits.

Declared through the family helpers in `helpers`: one line per primitive plus its
NumPy reference and StableHLO/CHLO op. Derivative and batching rules are attached
by `transforms.ad` / `transforms.batching` through the same family tables.
"""
from __future__ import annotations

import math

import numpy as np

from .. import core as _core
from .. import dtypes
from .base import (ANY, FLOAT, INEXACT, INT, INT_BOOL, NUMBER, REAL, binop,
                      compare_lowering, unop)

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


def _round_half_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def _logistic(x):
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-x))


def _popcnt(x):
    x = np.asarray(x)
    u = x.view(np.dtype(f"u{x.dtype.itemsize}"))
    bits = np.unpackbits(u.reshape(-1, 1).view(np.uint8), axis=1).sum(axis=1)
    return bits.reshape(x.shape).astype(x.dtype)


def _clz(x):
    x = np.asarray(x)
    nbits = x.dtype.itemsize * 8
    u = x.view(np.dtype(f"u{x.dtype.itemsize}")).astype(np.uint64)
    out = np.full(x.shape, nbits, np.int64)
    for b in range(nbits):
        out = np.where((u >> np.uint64(b)) & np.uint64(1), nbits - 1 - b, out)
    return out.astype(x.dtype)


def _to_bool(dt):
    return dtypes.bool_


def _real_dtype(dt):
    return {dtypes.complex64: dtypes.float32, dtypes.complex128: dtypes.float64}.get(
        np.dtype(dt), np.dtype(dt))


def _chlo(name):
    return f"chlo.{name}"


def _round_lowering(ctx, x, rounding_method=0):
    op = "stablehlo.round_nearest_even" if rounding_method == 1 else "stablehlo.round_nearest_afz"
    return ctx.op1(op, [x])


# ---- unary -----------------------------------------------------------------------
neg_p = unop("neg", np.negative, "stablehlo.negate", NUMBER)
def _unsigned(ctx):
    return dtypes.issubdtype(ctx.avals_in[0].dtype, np.unsignedinteger)


def _sign_lowering(ctx, x):
    if not _unsigned(ctx):  # stablehlo.sign has no unsigned form: x != 0
        return ctx.op1("stablehlo.sign", [x])
    a = ctx.avals_in[0]
    zero = ctx.broadcast(ctx.constant(0, a.update(shape=())), a.update(shape=()), a)
    ne = ctx.op1("stablehlo.compare", [x, zero], a.update(dtype=dtypes.bool_), attrs={
        "comparison_direction": "#stablehlo<comparison_direction NE>",
        "compare_type": "#stablehlo<comparison_type UNSIGNED>"})
    return ctx.op1("stablehlo.convert", [ne])


def _part_lowering(op):
    """real/imag/conj of a real operand: x, zeros, x (NumPy's meaning)."""
    def rule(ctx, x):
        a = ctx.avals_in[0]
        if dtypes.issubdtype(a.dtype, np.complexfloating):
            return op(ctx, x)
        if op is _imag_op:
            return ctx.broadcast(ctx.constant(0, a.update(shape=())), a.update(shape=()), a)
        return x
    return rule


def _imag_op(ctx, x):
    return ctx.op1("stablehlo.imag", [x])


def _minmax_lowering(hlo, direction):
    def rule(ctx, x, y):
        if not dtypes.issubdtype(ctx.avals_in[0].dtype, np.complexfloating):
            return ctx.op1(hlo, [x, y])
        from .base import complex_order_lowering
        b = ctx.avals_out[0].update(dtype=dtypes.bool_)
        pick = complex_order_lowering(ctx, x, y, direction)
        xnan = ctx.op1("stablehlo.compare", [x, x], b, attrs={
            "comparison_direction": "#stablehlo<comparison_direction NE>",
            "compare_type": "#stablehlo<comparison_type FLOAT>"})
        return ctx.op1("stablehlo.select", [ctx.op1("stablehlo.or", [pick, xnan], b), x, y])
    return rule


sign_p = unop("sign", np.sign, _sign_lowering, NUMBER)
floor_p = unop("floor", np.floor, "stablehlo.floor")
ceil_p = unop("ceil", np.ceil, "stablehlo.ceil")
abs_p = unop("abs", np.abs, lambda ctx, x: x if _unsigned(ctx) else ctx.op1("stablehlo.abs", [x]),
             NUMBER, out_dtype=_real_dtype)
exp_p = unop("exp", np.exp, "stablehlo.exponential", INEXACT)
exp2_p = unop("exp2", np.exp2, lambda ctx, x: ctx.op1("stablehlo.exponential", [
    ctx.op1("stablehlo.multiply", [x, ctx.broadcast(ctx.constant(math.log(2), ctx.avals_in[0].update(shape=())), ctx.avals_in[0].update(shape=()), ctx.avals_in[0])])]), INEXACT)
log_p = unop("log", np.log, "stablehlo.log", INEXACT)
log1p_p = unop("log1p", np.log1p, "stablehlo.log_plus_one", INEXACT)
expm1_p = unop("expm1", np.expm1, "stablehlo.exponential_minus_one", INEXACT)
sqrt_p = unop("sqrt", np.sqrt, "stablehlo.sqrt", INEXACT)
rsqrt_p = unop("rsqrt", lambda x: 1.0 / np.sqrt(x), "stablehlo.rsqrt", INEXACT)
cbrt_p = unop("cbrt", _cbrt, "stablehlo.cbrt")
sin_p = unop("sin", np.sin, "stablehlo.sine", INEXACT)
cos_p = unop("cos", np.cos, "stablehlo.cosine", INEXACT)
tan_p = unop("tan", np.tan, "stablehlo.tan", INEXACT)
asin_p = unop("asin", np.arcsin, _chlo("asin"), INEXACT)
acos_p = unop("acos", np.arccos, _chlo("acos"), INEXACT)
atan_p = unop("atan", np.arctan, _chlo("atan"), INEXACT)
sinh_p = unop("sinh", np.sinh, _chlo("sinh"), INEXACT)
cosh_p = unop("cosh", np.cosh, _chlo("cosh"), INEXACT)
tanh_p = unop("tanh", np.tanh, "stablehlo.tanh", INEXACT)
asinh_p = unop("asinh", np.arcsinh, _chlo("asinh"), INEXACT)
acosh_p = unop("acosh", np.arccosh, _chlo("acosh"), INEXACT)
atanh_p = unop("atanh", np.arctanh, _chlo("atanh"), INEXACT)
logistic_p = unop("logistic", _logistic, "stablehlo.logistic", INEXACT)
erf_p = unop("erf", _np_special("erf"), _chlo("erf"))
erfc_p = unop("erfc", _np_special("erfc"), _chlo("erfc"))
erf_inv_p = unop("erf_inv", _erf_inv, _chlo("erf_inv"))
lgamma_p = unop("lgamma", _np_special("lgamma"), _chlo("lgamma"))
digamma_p = unop("digamma", _digamma, _chlo("digamma"))
is_finite_p = unop("is_finite", np.isfinite, "stablehlo.is_finite", FLOAT, out_dtype=_to_bool)
not_p = unop("not", lambda x: np.invert(x) if x.dtype != np.bool_ else np.logical_not(x),
             "stablehlo.not", INT_BOOL)
population_count_p = unop("population_count", _popcnt, "stablehlo.popcnt", INT)
clz_p = unop("clz", _clz, "stablehlo.count_leading_zeros", INT)
real_p = unop("real", np.real, _part_lowering(lambda ctx, x: ctx.op1("stablehlo.real", [x])),
              ANY, out_dtype=_real_dtype)
imag_p = unop("imag", np.imag, _part_lowering(_imag_op), ANY, out_dtype=_real_dtype)
conj_p = unop("conj", np.conj, _part_lowering(lambda ctx, x: ctx.op1("stablehlo.complex", [
    ctx.op1("stablehlo.real", [x], ctx.avals_in[0].update(dtype=_real_dtype(ctx.avals_in[0].dtype))),
    ctx.op1("stablehlo.negate", [ctx.op1("stablehlo.imag", [x], ctx.avals_in[0].update(dtype=_real_dtype(ctx.avals_in[0].dtype)))],
            ctx.avals_in[0].update(dtype=_real_dtype(ctx.avals_in[0].dtype)))])), INEXACT)
round_p = unop("round", lambda x, rounding_method=0: np.round(x) if rounding_method == 1
               else _round_half_away(x), _round_lowering)


def _np_integer_pow(x, *, y):
    return np.power(x, y) if y >= 0 else 1 / np.power(x, -y)


def _integer_pow_lowering(ctx, x, *, y):
    """x ** y for a static integer y, by repeated squaring."""
    aval = ctx.avals_in[0]
    scalar = aval.update(shape=())
    acc, base, n = None, x, abs(y)
    while n:
        if n & 1:
            acc = base if acc is None else ctx.op1("stablehlo.multiply", [acc, base])
        n >>= 1
        if n:
            base = ctx.op1("stablehlo.multiply", [base, base])
    if acc is None:
        acc = ctx.broadcast(ctx.constant(1, scalar), scalar, aval)
    if y < 0:
        one = ctx.broadcast(ctx.constant(1, scalar), scalar, aval)
        acc = ctx.op1("stablehlo.divide", [one, acc])
    return acc


integer_pow_p = unop("integer_pow", _np_integer_pow, _integer_pow_lowering, NUMBER)

# ---- binary ----------------------------------------------------------------------
add_p = binop("add", np.add, "stablehlo.add", ANY)
sub_p = binop("sub", np.subtract, "stablehlo.subtract")
mul_p = binop("mul", np.multiply, "stablehlo.multiply", ANY)


def _np_div(x, y):
    if dtypes.is_int(x.dtype):  # C-style truncation, as XLA
        q = np.where(y == 0, -1, np.abs(x) // np.where(y == 0, 1, np.abs(y)))
        q = np.where((x < 0) != (y < 0), -q, q)
        return np.where(y == 0, ~np.zeros_like(x), q)  # XLA: x / 0 is all ones
    return np.true_divide(x, y)


def _np_rem(x, y):
    if dtypes.is_int(x.dtype):
        return np.where(y == 0, x, np.fmod(x, np.where(y == 0, 1, y)))
    return np.fmod(x, y)


div_p = binop("div", _np_div, "stablehlo.divide")
rem_p = binop("rem", _np_rem, "stablehlo.remainder", REAL)
pow_p = binop("pow", np.power, "stablehlo.power", INEXACT)
max_p = binop("max", np.maximum, _minmax_lowering("stablehlo.maximum", "GT"), ANY)
min_p = binop("min", np.minimum, _minmax_lowering("stablehlo.minimum", "LT"), ANY)
atan2_p = binop("atan2", np.arctan2, "stablehlo.atan2", FLOAT)
nextafter_p = binop("nextafter", np.nextafter, _chlo("next_after"), FLOAT)
and_p = binop("and", lambda x, y: x & y, "stablehlo.and", INT_BOOL)
or_p = binop("or", lambda x, y: x | y, "stablehlo.or", INT_BOOL)
xor_p = binop("xor", lambda x, y: x ^ y, "stablehlo.xor", INT_BOOL)


def _shift(op):
    def f(x, y):
        nbits = x.dtype.itemsize * 8
        u = np.dtype(f"u{x.dtype.itemsize}")
        big = (y.astype(u) >= nbits) if y.dtype.kind != "u" else (y >= nbits)
        y_safe = np.where(big, 0, y).astype(x.dtype)
        if op == "l":
            r = np.left_shift(x, y_safe)
            return np.where(big, 0, r)
        if op == "ra":  # on the signed view of the bits, as XLA (also for unsigned)
            s = np.dtype(f"i{x.dtype.itemsize}")
            xs = x.view(s)
            r = np.right_shift(xs, y_safe.view(s))
            return np.where(big, np.where(xs < 0, -1, 0), r).astype(s).view(x.dtype)
        r = np.right_shift(x.view(u), y_safe.view(u)).view(x.dtype)
        return np.where(big, 0, r)
    return f


shift_left_p = binop("shift_left", _shift("l"), "stablehlo.shift_left", INT)
shift_right_arithmetic_p = binop("shift_right_arithmetic", _shift("ra"),
                                 "stablehlo.shift_right_arithmetic", INT)
shift_right_logical_p = binop("shift_right_logical", _shift("rl"),
                              "stablehlo.shift_right_logical", INT)

eq_p = binop("eq", np.equal, compare_lowering("EQ"), ANY, out_dtype=_to_bool)
ne_p = binop("ne", np.not_equal, compare_lowering("NE"), ANY, out_dtype=_to_bool)
lt_p = binop("lt", np.less, compare_lowering("LT"), ANY, out_dtype=_to_bool)
le_p = binop("le", np.less_equal, compare_lowering("LE"), ANY, out_dtype=_to_bool)
gt_p = binop("gt", np.greater, compare_lowering("GT"), ANY, out_dtype=_to_bool)
ge_p = binop("ge", np.greater_equal, compare_lowering("GE"), ANY, out_dtype=_to_bool)
# add_any: the sum of two cotangents (JAX's name), kept distinct so that it prints
# as JAX does and simplification can see accumulations.
add_any_p = binop("add_any", np.add, "stablehlo.add", ANY)
complex_p = binop("complex", lambda x, y: x + 1j * y, "stablehlo.complex", FLOAT,
                  out_dtype=lambda d: dtypes.complex128 if d == dtypes.float64 else dtypes.complex64)


def _complex_ae(x, y, _ae=_core.abstract_eval_rules[complex_p]):
    if x.dtype not in (dtypes.float32, dtypes.float64):
        from ..errors import DTypeError
        raise DTypeError(f"`complex` needs float32 or float64 parts, got {x.str_short()}")
    return _ae(x, y)


_core.abstract_eval_rules[complex_p] = _complex_ae

UNARY = {p.name: p for p in [neg_p, sign_p, floor_p, ceil_p, round_p, abs_p, exp_p, exp2_p,
                             log_p, log1p_p, expm1_p, sqrt_p, rsqrt_p, cbrt_p, sin_p, cos_p,
                             tan_p, asin_p, acos_p, atan_p, sinh_p, cosh_p, tanh_p, asinh_p,
                             acosh_p, atanh_p, logistic_p, erf_p, erfc_p, erf_inv_p, lgamma_p,
                             digamma_p, is_finite_p, not_p, population_count_p, clz_p,
                             real_p, imag_p, conj_p, integer_pow_p]}
BINARY = {p.name: p for p in [add_p, sub_p, mul_p, div_p, rem_p, pow_p, max_p, min_p, atan2_p,
                              nextafter_p, and_p, or_p, xor_p, shift_left_p,
                              shift_right_arithmetic_p, shift_right_logical_p, eq_p, ne_p,
                              lt_p, le_p, gt_p, ge_p, add_any_p, complex_p]}
