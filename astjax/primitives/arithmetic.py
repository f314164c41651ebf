"""Elementwise arithmetic: neg, sign, floor, ceil, round, abs, integer_pow (with
square, reciprocal), add, add_any, sub, mul, div, rem, max, min.

One block per primitive: the declaration (`base.unop`/`base.binop`: NumPy reference
impl, abstract eval, StableHLO lowering, the batch rule and the printed form, by
default `lax.<name>(...)`, here often the infix `x + y`), the jvp/transpose rule
(`base.defjvp`/`defzero`/`deflinear`/`deftranspose`) and the `lax` wrapper function
(`astjax.lax` re-exports it; `elementwise` re-exports everything). The other
elementwise families build their derivative rules from these.
"""
from __future__ import annotations

import ast
import builtins
import enum

import numpy as np

from .. import core, dtypes
from ..errors import DTypeError
from ..pyast import dtype_expr, lax_call, pyconst
from .base import (ANY, NUMBER, REAL, as_operand, bcast_operand, binary_shape, binop, check_dtype,
                   defjvp, deflinear, deftranspose, defzero, infix_source, is_zero, lax_ops,
                   match_scalars, numeric, shown_params, sum_tangents, tangent_aval,
                   unbcast_operand, unop, weak_const)
from .comparisons import eq, ge, lexicographic_minmax, minmax_values, ordered_gt, ordered_lt

Zero = core.Zero
is_undefined = core.is_undefined

# ---------------------------------------------------------------------- helpers


def _round_half_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def _real_dtype(dt):
    return {dtypes.complex64: dtypes.float32, dtypes.complex128: dtypes.float64}.get(
        np.dtype(dt), np.dtype(dt))


def _unsigned(ctx):
    return dtypes.issubdtype(ctx.avals_in[0].dtype, np.unsignedinteger)


def _c(x, v):
    return weak_const(x, v)

# ---------------------------------------------------------------- sign and rounding


def _neg_source(gen, eqn):
    (x,) = eqn.invars
    if isinstance(x, core.Var) and numeric(x.aval.dtype):
        return ast.UnaryOp(op=ast.USub(), operand=gen.arg(x))
    return lax_call("neg", gen, eqn)


neg_p = unop("neg", np.negative, "stablehlo.negate", NUMBER, source=_neg_source)
deflinear(neg_p, lambda ct, x: [Zero(x.aval) if is_zero(ct) else neg(ct)])


def neg(x):
    """`-x`, elementwise."""
    return neg_p.bind(as_operand(x))


def _sign_lowering(ctx, x):
    if not _unsigned(ctx):  # stablehlo.sign has no unsigned form: x != 0
        return ctx.op1("stablehlo.sign", [x])
    a = ctx.avals_in[0]
    zero = ctx.broadcast(ctx.constant(0, a.update(shape=())), a.update(shape=()), a)
    ne_ = ctx.op1("stablehlo.compare", [x, zero], a.update(dtype=dtypes.bool_), attrs={
        "comparison_direction": "#stablehlo<comparison_direction NE>",
        "compare_type": "#stablehlo<comparison_type UNSIGNED>"})
    return ctx.op1("stablehlo.convert", [ne_])


sign_p = unop("sign", np.sign, _sign_lowering, NUMBER)
defzero(sign_p)


def sign(x):
    """-1, 0 or 1 by the sign of x (x / |x| for complex)."""
    return sign_p.bind(as_operand(x))


floor_p = unop("floor", np.floor, "stablehlo.floor")
defzero(floor_p)


def floor(x):
    """The largest integer value <= x, elementwise."""
    return floor_p.bind(as_operand(x))


ceil_p = unop("ceil", np.ceil, "stablehlo.ceil")
defzero(ceil_p)


def ceil(x):
    """The smallest integer value >= x, elementwise."""
    return ceil_p.bind(as_operand(x))


def _round_lowering(ctx, x, rounding_method=0):
    op = "stablehlo.round_nearest_even" if rounding_method == 1 else "stablehlo.round_nearest_afz"
    return ctx.op1(op, [x])


def _round_source(gen, eqn):
    return lax_call("round", gen, eqn, pyconst(int(eqn.params.get("rounding_method", 0))))


round_p = unop("round", lambda x, rounding_method=0: np.round(x) if rounding_method == 1
               else _round_half_away(x), _round_lowering, source=_round_source)
defzero(round_p)


class RoundingMethod(enum.IntEnum):
    """`lax.round`'s rounding of halves: away from zero (default) or to even."""
    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


def round(x, rounding_method=RoundingMethod.AWAY_FROM_ZERO):  # noqa: A001
    """x rounded to an integer value (halves by `rounding_method`); the equation's
    `rounding_method` is the enum member, as JAX's."""
    return round_p.bind(x, rounding_method=RoundingMethod(int(rounding_method)))


def _abs_check(x):
    if dtypes.issubdtype(x.dtype, np.unsignedinteger):  # JAX: signed, floating, complex
        raise DTypeError(f"`abs` does not accept unsigned operands, got {x.str_short(True)}")


abs_p = unop("abs", np.abs, "stablehlo.abs", NUMBER, out_dtype=_real_dtype, check=_abs_check)


def _abs_jvp(t, y, x):
    """Real x: `select(x >= 0, t, -t)` (JAX's convention: the derivative at 0 is 1).
    Complex x: `real(t * conj(x) / |x|)`, with |x| replaced by 1 where it is 0
    (so the tangent at 0 is 0, as JAX's)."""
    lax = lax_ops()
    if not dtypes.issubdtype(tangent_aval(x).dtype, np.complexfloating):
        return lax.select(ge(x, _c(x, 0)), t, neg(t))
    nz = lax.select(eq(y, _c(y, 0)), lax.full_like(y, 1), y)
    return lax.real(mul(t, div(lax.conj(x), lax.convert_element_type(nz, tangent_aval(x).dtype))))


defjvp(abs_p, _abs_jvp)


def abs(x):  # noqa: A001
    """|x|, elementwise (real for complex x)."""
    return abs_p.bind(as_operand(x))

# ------------------------------------------------------------------------ powers


def _np_integer_pow(x, *, y):
    return np.power(x, y) if y >= 0 else 1 / np.power(x, -y)


def _integer_pow_lowering(ctx, x, *, y):
    """x ** y for a static integer y, by repeated squaring."""
    aval = ctx.avals_in[0]
    scalar = aval.update(shape=())
    acc, base, n = None, x, builtins.abs(y)
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


def _integer_pow_jvp(primals, tangents, *, y):
    x, = primals
    t, = tangents
    out = integer_pow(x, y)
    if is_zero(t) or y == 0:
        return out, Zero(tangent_aval(out))
    if y == 1:
        return out, t
    d = mul(_c(x, y), x if y == 2 else integer_pow(x, y - 1))
    return out, mul(t, d)


def _integer_pow_source(gen, eqn):
    (x,) = eqn.invars
    y = eqn.params["y"]
    if isinstance(x, core.Var) and (y >= 0 or dtypes.is_inexact(x.aval.dtype)):
        return ast.BinOp(left=gen.arg(x), op=ast.Pow(), right=pyconst(int(y)))
    return lax_call("integer_pow", gen, eqn, pyconst(int(y)))


def _integer_pow_check(x, *, y):
    if y < 0 and not dtypes.is_inexact(x.dtype):
        raise DTypeError(f"Integers cannot be raised to negative powers, got "
                         f"integer_pow({x.str_short(True)}, {y})",
                         hint="convert x to a floating-point dtype first, e.g. "
                              "x.astype(float) ** y")


integer_pow_p = unop("integer_pow", _np_integer_pow, _integer_pow_lowering, NUMBER,
                     source=_integer_pow_source, check=_integer_pow_check)
integer_pow_p.jvp = _integer_pow_jvp


def integer_pow(x, y: int):
    """x ** y for a static Python integer y."""
    return integer_pow_p.bind(x, y=int(y))


def _square_lowering(ctx, x):
    # JAX's: a product for integers, CHLO's square (exact for complex) otherwise
    if dtypes.is_int(ctx.avals_in[0].dtype):
        return ctx.op1("stablehlo.multiply", [x, x])
    return ctx.op1("chlo.square", [x])


square_p = unop("square", np.square, _square_lowering, NUMBER)
defjvp(square_p, lambda t, y, x: mul(t, mul(_c(x, 2), x)))


def square(x):
    """`lax.square`: x * x, elementwise (integer, floating or complex)."""
    return square_p.bind(as_operand(x))


def reciprocal(x):
    """1 / x (`integer_pow(x, -1)`)."""
    return integer_pow(x, -1)

# ------------------------------------------------------------------ binary arithmetic


def _add_like(p, sign_y):
    """jvp and transpose of add, add_any (sign_y 1) and sub (-1)."""
    def rule(primals, tangents):
        out = p.bind(*primals)
        shape = tangent_aval(out).shape
        tx, ty = tangents
        if not (is_zero(tx) or is_zero(ty)):   # the tangents combined by `p` itself, as JAX
            return out, p.bind(bcast_operand(tx, shape), bcast_operand(ty, shape))
        if sign_y < 0 and not is_zero(ty):
            ty = neg(ty)
        tout = sum_tangents([tx, ty], shape)
        return out, Zero(tangent_aval(out)) if is_zero(tout) else tout

    def transpose(ct, x, y):
        if is_zero(ct):
            return [None, None]
        cx = unbcast_operand(ct, x.aval) if is_undefined(x) else None
        cy = None
        if is_undefined(y):
            cy = unbcast_operand(ct if sign_y > 0 else neg(ct), y.aval)
        return [cx, cy]
    p.jvp = rule
    deftranspose(p, transpose)


add_p = binop("add", np.add, "stablehlo.add", NUMBER, source=infix_source(ast.Add, "arith"))
_add_like(add_p, 1)


def add(x, y):
    """x + y, elementwise."""
    return add_p.bind(*match_scalars(x, y))


# add_any: the sum of two cotangents (JAX's name), kept distinct so that it prints
# as JAX does and simplification can see accumulations.
add_any_p = binop("add_any", np.add, "stablehlo.add", ANY,
                  source=infix_source(ast.Add, "arith"))
_add_like(add_any_p, 1)


def add_any(x, y):
    """x + y for accumulated (co)tangents."""
    return add_any_p.bind(*match_scalars(x, y))


sub_p = binop("sub", np.subtract, "stablehlo.subtract", source=infix_source(ast.Sub, "arith"))
_add_like(sub_p, -1)


def sub(x, y):
    """x - y, elementwise."""
    return sub_p.bind(*match_scalars(x, y))


def _mul_jvp(primals, tangents, **params):
    x, y = primals
    tx, ty = tangents
    out = mul(x, y, **params)
    ts = [Zero(None) if is_zero(tx) else mul(tx, y, **params),
          Zero(None) if is_zero(ty) else mul(x, ty, **params)]
    tout = sum_tangents(ts, tangent_aval(out).shape)
    return out, Zero(tangent_aval(out)) if is_zero(tout) else tout


def _mul_transpose(ct, x, y, out_dtype=None):
    # (with `out_dtype`, each cotangent is produced in its operand's dtype, as JAX does)
    if is_zero(ct):
        return [None, None]
    if is_undefined(x) and is_undefined(y):
        raise AssertionError("mul of two linear values is not linear")
    if is_undefined(x):
        od = {} if out_dtype is None else {"out_dtype": x.aval.dtype}
        return [unbcast_operand(mul(ct, y, **od), x.aval), None]
    od = {} if out_dtype is None else {"out_dtype": y.aval.dtype}
    return [None, unbcast_operand(mul(x, ct, **od), y.aval)]


def _mul_source(gen, eqn):
    if eqn.params.get("out_dtype") is None:
        return _mul_infix(gen, eqn)
    return lax_call("mul", gen, eqn, out_dtype=dtype_expr(eqn.params["out_dtype"]))


_mul_infix = infix_source(ast.Mult, "arith")
# `out_dtype` (None unless given; printed only then, as JAX's): the operands, of any
# numeric dtypes, are converted to it and multiplied in it
mul_p = binop("mul", np.multiply, "stablehlo.multiply", NUMBER, source=_mul_source)
mul_p.pp_shown = shown_params(hidden_none=("out_dtype",))
_mul_eval, _mul_impl, _mul_lower = mul_p.abstract_eval, mul_p.impl, mul_p.lowering


def _mul_abstract_eval_out_dtype(x, y, out_dtype=None):
    if out_dtype is None:
        return _mul_eval(x, y)
    check_dtype("mul", NUMBER, x, y)
    return core.ShapedArray(binary_shape("mul", x, y), out_dtype, x.weak_type and y.weak_type)


def _mul_impl_out_dtype(x, y, out_dtype=None):
    if out_dtype is None:
        return _mul_impl(x, y)
    return _mul_impl(np.asarray(x).astype(out_dtype), np.asarray(y).astype(out_dtype))


def _mul_lowering_out_dtype(ctx, x, y, out_dtype=None):
    if out_dtype is None:
        return _mul_lower(ctx, x, y)
    out = ctx.avals_out[0]
    x, y = (ctx.op1("stablehlo.convert", [ctx.broadcast(v, a, out)], out)
            if a.dtype != out.dtype else ctx.broadcast(v, a, out)
            for v, a in zip((x, y), ctx.avals_in))
    return ctx.op1("stablehlo.multiply", [x, y])


mul_p.abstract_eval = _mul_abstract_eval_out_dtype
mul_p.impl, mul_p.lowering = _mul_impl_out_dtype, _mul_lowering_out_dtype
mul_p.jvp = _mul_jvp
deftranspose(mul_p, _mul_transpose)


def mul(x, y, *, out_dtype=None):
    """x * y, elementwise; with `out_dtype`, the operands (which may then differ in
    dtype) are converted to it first and the product has that dtype, as JAX's."""
    if out_dtype is None:
        return mul_p.bind(*match_scalars(x, y), out_dtype=None)
    out_dtype = dtypes.canonicalize(dtypes.dtype(out_dtype))
    return mul_p.bind(as_operand(x), as_operand(y), out_dtype=out_dtype)


def _np_div(x, y):
    if dtypes.is_int(x.dtype):  # C-style truncation, as XLA
        q = np.where(y == 0, -1, np.abs(x) // np.where(y == 0, 1, np.abs(y)))
        q = np.where((x < 0) != (y < 0), -q, q)
        return np.where(y == 0, ~np.zeros_like(x), q)  # XLA: x / 0 is all ones
    return np.true_divide(x, y)


def _div_jvp(primals, tangents):
    x, y = primals
    tx, ty = tangents
    out = div(x, y)
    # d/dy is (-ty * x) * y**-2, in JAX's order of operations: its rounding is JAX's
    ts = [Zero(None) if is_zero(tx) else div(tx, y),
          Zero(None) if is_zero(ty) else mul(mul(neg(ty), x), integer_pow(y, -2))]
    tout = sum_tangents(ts, tangent_aval(out).shape)
    return out, Zero(tangent_aval(out)) if is_zero(tout) else tout


def _div_transpose(ct, x, y):
    if is_undefined(y):
        raise AssertionError("div is not linear in its divisor")
    if is_zero(ct):
        return [None, None]
    return [unbcast_operand(div(ct, y), x.aval), None]


div_p = binop("div", _np_div, "stablehlo.divide", source=infix_source(ast.Div, "div"))
div_p.jvp = _div_jvp
deftranspose(div_p, _div_transpose)


def div(x, y):
    """x / y, elementwise (integers: truncating, as C and XLA)."""
    return div_p.bind(*match_scalars(x, y))


def _np_rem(x, y):
    if dtypes.is_int(x.dtype):
        return np.where(y == 0, x, np.fmod(x, np.where(y == 0, 1, y)))
    return np.fmod(x, y)


def _rem_y(t, z, x, y):
    q = div(x, y)
    return mul(neg(t), mul(sign(q), floor(abs(q))))


rem_p = binop("rem", _np_rem, "stablehlo.remainder", REAL)
defjvp(rem_p, lambda t, z, x, y: t, _rem_y)


def rem(x, y):
    """The remainder of x / y with the sign of x (C's fmod)."""
    return rem_p.bind(*match_scalars(x, y))


def _minmax_lowering(hlo):
    def rule(ctx, x, y):
        return minmax_values(ctx, hlo, x, y, ctx.avals_out[0])
    return rule


def _minmax_coef(pick_gt):
    # balanced: 1 where x wins, 0.5 on ties, 0 where it loses
    def coef_x(t, z, x, y):
        lax = lax_ops()
        shape = tangent_aval(z).shape
        xb, yb = bcast_operand(x, shape), bcast_operand(y, shape)
        win = ordered_gt(xb, yb) if pick_gt else ordered_lt(xb, yb)
        c = lax.select(win, lax.full_like(z, 1), lax.full_like(z, 0))
        c = lax.select(eq(xb, yb), lax.full_like(z, 0.5), c)
        return mul(t, c)

    def coef_y(t, z, x, y):
        return coef_x(t, z, y, x)
    return coef_x, coef_y


max_p = binop("max", lexicographic_minmax(np.maximum, True), _minmax_lowering("stablehlo.maximum"), ANY)
defjvp(max_p, *_minmax_coef(True))


def max(x, y):  # noqa: A001
    """The larger of x and y, elementwise (nan wins; complex: lexicographic)."""
    return max_p.bind(*match_scalars(x, y))


min_p = binop("min", lexicographic_minmax(np.minimum, False), _minmax_lowering("stablehlo.minimum"), ANY)
defjvp(min_p, *_minmax_coef(False))


def min(x, y):  # noqa: A001
    """The smaller of x and y, elementwise (nan wins; complex: lexicographic)."""
    return min_p.bind(*match_scalars(x, y))

