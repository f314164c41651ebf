"""Elementwise comparisons, logic and bit operations: eq/ne/lt/le/gt/ge, is_finite,
not/and/or/xor, the shifts, population_count and clz.

Their values are bool or integer, so they have no derivative (`nondiff`). Each
primitive is one block: its declaration (impl, abstract eval and lowering through
`base.unop`/`base.binop`, which also give the batch rule and the default printed
form `lax.<name>(...)`), any printed-source template, and its `lax` wrapper
(`astjax.lax` re-exports the wrappers).

The wrappers prepare operands with `base.as_operand` / `base.match_scalars` (JAX's
rule: a Python scalar is a weak value of its own default dtype); operators print
through `base.infix_source`.
"""
from __future__ import annotations

import ast

import numpy as np

from .. import core, dtypes
from ..errors import DTypeError, RuntimeDTypeError
from ..pyast import call, lax_call
from .base import (ANY, FLOAT, INT, INT_BOOL, as_operand, binop, infix_source, match_scalars,
                   nondiff, operator_ok, unop)


def _to_bool(dt):
    return dtypes.bool_


def _real_order(name, x, y):
    """`x, y` as operands of `lax.<name>`, which (as JAX's) orders only real and bool
    values: complex operands are a `DTypeError` (a TypeError)."""
    x, y = match_scalars(x, y)
    for v in (x, y):
        dt = core.get_aval(v).dtype
        if dtypes.issubdtype(dt, np.complexfloating):
            raise DTypeError(f"`lax.{name}` does not accept dtype {np.dtype(dt).name}: it "
                             "orders integer, floating-point and bool values only",
                             hint="jnp's comparisons order complex values lexicographically; "
                                  "or compare `lax.real(x)`")
    return x, y

# ------------------------------------------------------------------- comparisons


def _complex_parts(ctx, x, aval):
    r = aval.update(dtype=dtypes.float64 if aval.dtype == dtypes.complex128 else dtypes.float32)
    return ctx.op1("stablehlo.real", [x], r), ctx.op1("stablehlo.imag", [x], r), r


def complex_order_lowering(ctx, x, y, direction, aval=None):
    """Lexicographic (real, then imaginary) ordering of complex values, as NumPy;
    `aval`: the operands' type (default: the equation's output shape)."""
    aval = aval or ctx.avals_out[0].update(dtype=ctx.avals_in[0].dtype)
    xr, xi, r = _complex_parts(ctx, x, aval)
    yr, yi, _ = _complex_parts(ctx, y, aval)
    b = aval.update(dtype=dtypes.bool_)

    def cmp(a, c, d):
        return ctx.op1("stablehlo.compare", [a, c], b, attrs={
            "comparison_direction": f"#stablehlo<comparison_direction {d}>",
            "compare_type": "#stablehlo<comparison_type FLOAT>"})
    strict = {"LE": "LT", "GE": "GT"}.get(direction, direction)
    tie = ctx.op1("stablehlo.and", [cmp(xr, yr, "EQ"), cmp(xi, yi, direction)], b)
    return ctx.op1("stablehlo.or", [cmp(xr, yr, strict), tie], b)


_MINMAX_DIRECTION = {"stablehlo.maximum": "GT", "stablehlo.minimum": "LT"}


def minmax_values(ctx, hlo, x, y, aval):
    """`hlo` (stablehlo.maximum/minimum) of x and y of type `aval`; complex values
    compare lexicographically (StableHLO's own complex maximum does not order that
    way), JAX's select for `lax.max` / `lax.min` and their reductions: y unless x is
    strictly beyond it, so `max(nan, -0.36j)` is -0.36j and `max(-0.36j, nan)` NaN."""
    if not dtypes.issubdtype(aval.dtype, np.complexfloating):
        return ctx.op1(hlo, [x, y], aval)
    pick = complex_order_lowering(ctx, x, y, _MINMAX_DIRECTION[hlo], aval)
    return ctx.op1("stablehlo.select", [pick, x, y], aval)


def lexicographic_minmax(np_fn, pick_gt):
    """The NumPy reference of `lax.max` (`pick_gt`) / `lax.min`: `np_fn` for real values,
    complex ones as `minmax_values` (no NaN propagation)."""
    def f(x, y):
        x, y = np.asarray(x), np.asarray(y)
        if x.dtype.kind != "c":
            return np_fn(x, y)
        beyond = np.greater if pick_gt else np.less
        with np.errstate(invalid="ignore"):
            pick = beyond(x.real, y.real) | ((x.real == y.real) & beyond(x.imag, y.imag))
        return np.where(pick, x, y)
    return f


def compare_lowering(direction, total_order=False):
    """`stablehlo.compare` in `direction`; `total_order`: floats compare in IEEE's
    total order (-0 < +0, NaNs ordered by sign and payload), as JAX's `*_to` do."""
    def rule(ctx, x, y):
        dt = ctx.avals_in[0].dtype
        if dtypes.issubdtype(dt, np.complexfloating) and direction not in ("EQ", "NE"):
            return complex_order_lowering(ctx, x, y, direction)
        float_type = "TOTALORDER" if total_order else "FLOAT"
        ctype = (float_type if dtypes.is_inexact(dt) else
                 "UNSIGNED" if dtypes.issubdtype(dt, np.unsignedinteger) or dt == dtypes.bool_
                 else "SIGNED")
        return ctx.op1("stablehlo.compare", [x, y], attrs={
            "comparison_direction": f"#stablehlo<comparison_direction {direction}>",
            "compare_type": f"#stablehlo<comparison_type {ctype}>"})
    return rule



def _compare_source(op):
    """`x <op> y` when exact, else `lax.<name>(x, y)`."""
    def rule(gen, eqn):
        if operator_ok(eqn, "compare"):
            x, y = eqn.invars
            return ast.Compare(left=gen.arg(x, bare=True), ops=[op()],
                               comparators=[gen.arg(y, bare=True)])
        return lax_call(eqn.primitive.name, gen, eqn)
    return rule


eq_p = binop("eq", np.equal, compare_lowering("EQ"), ANY, out_dtype=_to_bool,
             source=_compare_source(ast.Eq))
nondiff(eq_p)


def eq(x, y):
    """`x == y`, elementwise."""
    return eq_p.bind(*match_scalars(x, y))


ne_p = binop("ne", np.not_equal, compare_lowering("NE"), ANY, out_dtype=_to_bool,
             source=_compare_source(ast.NotEq))
nondiff(ne_p)


def ne(x, y):
    """`x != y`, elementwise."""
    return ne_p.bind(*match_scalars(x, y))


lt_p = binop("lt", np.less, compare_lowering("LT"), ANY, out_dtype=_to_bool,
             source=_compare_source(ast.Lt))
nondiff(lt_p)


def lt(x, y):
    """`x < y`, elementwise, for real or bool operands (complex ones are a TypeError,
    as in JAX)."""
    return lt_p.bind(*_real_order("lt", x, y))


def ordered_lt(x, y):
    """`x < y` in NumPy's order, which also orders complex values lexicographically
    (real part, then imaginary): what jnp's comparisons, sorting and max/min use."""
    return lt_p.bind(*match_scalars(x, y))


le_p = binop("le", np.less_equal, compare_lowering("LE"), ANY, out_dtype=_to_bool,
             source=_compare_source(ast.LtE))
nondiff(le_p)


def le(x, y):
    """`x <= y`, elementwise, for real or bool operands (complex ones are a TypeError,
    as in JAX)."""
    return le_p.bind(*_real_order("le", x, y))


def ordered_le(x, y):
    """`x <= y` in NumPy's order, which also orders complex values lexicographically
    (real part, then imaginary): what jnp's comparisons, sorting and max/min use."""
    return le_p.bind(*match_scalars(x, y))


# The total-order comparisons JAX's shape polymorphism binds (`lax.eq_to_p`, `le_to_p`,
# `lt_to_p`; no lax wrapper): floats compare in IEEE's total order, so -0 < +0 and a NaN
# equals itself; other dtypes as eq/le/lt.
def _total_order_key(x):
    """Integers whose order is IEEE's total order of the floats `x` (others as they are)."""
    x = np.asarray(x)
    if not dtypes.is_float(x.dtype):
        return x
    i = x.view(np.dtype(f"i{x.dtype.itemsize}"))
    flip = np.array(np.iinfo(i.dtype).max, i.dtype)
    return np.where(i < 0, i ^ flip, i)


def _no_complex_order(name):
    def check(x, y):
        if any(dtypes.issubdtype(a.dtype, np.complexfloating) for a in (x, y)):
            raise DTypeError(f"`{name}` orders integer, floating-point and bool values only, "
                             f"got {x.str_short(True)} and {y.str_short(True)}")
    return check


def _no_complex_total_order(x, y):
    # JAX accepts complex operands and XLA's verifier then refuses the TOTALORDER
    # comparison when the program compiles: the same class, located, before running
    if any(dtypes.issubdtype(a.dtype, np.complexfloating) for a in (x, y)):
        raise RuntimeDTypeError(f"FAILED_PRECONDITION: Expected comparison type FLOAT. "
                                f"actual: TOTALORDER (eq_to of {x.str_short(True)})",
                                hint="compare the real and imaginary parts separately")


eq_to_p = binop("eq_to", lambda x, y: np.equal(_total_order_key(x), _total_order_key(y)),
                compare_lowering("EQ", True), ANY, out_dtype=_to_bool,
                check=_no_complex_total_order)
le_to_p = binop("le_to", lambda x, y: np.less_equal(_total_order_key(x), _total_order_key(y)),
                compare_lowering("LE", True), ANY, out_dtype=_to_bool,
                check=_no_complex_order("le_to"))
lt_to_p = binop("lt_to", lambda x, y: np.less(_total_order_key(x), _total_order_key(y)),
                compare_lowering("LT", True), ANY, out_dtype=_to_bool,
                check=_no_complex_order("lt_to"))
nondiff(eq_to_p, le_to_p, lt_to_p)


gt_p = binop("gt", np.greater, compare_lowering("GT"), ANY, out_dtype=_to_bool,
             source=_compare_source(ast.Gt))
nondiff(gt_p)


def gt(x, y):
    """`x > y`, elementwise, for real or bool operands (complex ones are a TypeError,
    as in JAX)."""
    return gt_p.bind(*_real_order("gt", x, y))


def ordered_gt(x, y):
    """`x > y` in NumPy's order, which also orders complex values lexicographically
    (real part, then imaginary): what jnp's comparisons, sorting and max/min use."""
    return gt_p.bind(*match_scalars(x, y))


ge_p = binop("ge", np.greater_equal, compare_lowering("GE"), ANY, out_dtype=_to_bool,
             source=_compare_source(ast.GtE))
nondiff(ge_p)


def ge(x, y):
    """`x >= y`, elementwise, for real or bool operands (complex ones are a TypeError,
    as in JAX)."""
    return ge_p.bind(*_real_order("ge", x, y))


def ordered_ge(x, y):
    """`x >= y` in NumPy's order, which also orders complex values lexicographically
    (real part, then imaginary): what jnp's comparisons, sorting and max/min use."""
    return ge_p.bind(*match_scalars(x, y))


is_finite_p = unop("is_finite", np.isfinite, "stablehlo.is_finite", FLOAT, out_dtype=_to_bool)
nondiff(is_finite_p)


def is_finite(x):
    """Elementwise: neither inf nor nan."""
    return is_finite_p.bind(as_operand(x))

# ---------------------------------------------------------------- logic and bits


def _not_source(gen, eqn):
    # never Python's `not x`: its eager result is a Python bool, not the bool[] array
    # the IR variable is (R11: a later `.astype` on it fails)
    (x,) = eqn.invars
    if isinstance(x, core.Var) and x.aval.dtype == dtypes.bool_:
        return call("jnp.logical_not", [gen.arg(x)])
    return lax_call("bitwise_not", gen, eqn)


not_p = unop("not", lambda x: np.invert(x) if x.dtype != np.bool_ else np.logical_not(x),
             "stablehlo.not", INT_BOOL, source=_not_source)
nondiff(not_p)


def bitwise_not(x):
    """`~x` for integers, logical not for bools (`lax.bitwise_not`)."""
    return not_p.bind(as_operand(x))


and_p = binop("and", lambda x, y: x & y, "stablehlo.and", INT_BOOL,
              source=infix_source(ast.BitAnd, "bits", "bitwise_and"))
nondiff(and_p)


def bitwise_and(x, y):
    """`x & y`, elementwise (`lax.bitwise_and`)."""
    return and_p.bind(*match_scalars(x, y))


or_p = binop("or", lambda x, y: x | y, "stablehlo.or", INT_BOOL,
             source=infix_source(ast.BitOr, "bits", "bitwise_or"))
nondiff(or_p)


def bitwise_or(x, y):
    """`x | y`, elementwise (`lax.bitwise_or`)."""
    return or_p.bind(*match_scalars(x, y))


xor_p = binop("xor", lambda x, y: x ^ y, "stablehlo.xor", INT_BOOL,
              source=infix_source(ast.BitXor, "bits", "bitwise_xor"))
nondiff(xor_p)


def bitwise_xor(x, y):
    """`x ^ y`, elementwise (`lax.bitwise_xor`)."""
    return xor_p.bind(*match_scalars(x, y))


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
nondiff(shift_left_p)


def shift_left(x, y):
    """`x << y`; shifts of the bit width or more give 0."""
    return shift_left_p.bind(*match_scalars(x, y))


shift_right_arithmetic_p = binop("shift_right_arithmetic", _shift("ra"),
                                 "stablehlo.shift_right_arithmetic", INT)
nondiff(shift_right_arithmetic_p)


def shift_right_arithmetic(x, y):
    """`x >> y` keeping the sign bit (on the signed view of the bits, as XLA)."""
    return shift_right_arithmetic_p.bind(*match_scalars(x, y))


shift_right_logical_p = binop("shift_right_logical", _shift("rl"),
                              "stablehlo.shift_right_logical", INT)
nondiff(shift_right_logical_p)


def shift_right_logical(x, y):
    """`x >> y` filling with zeros (on the unsigned view of the bits)."""
    return shift_right_logical_p.bind(*match_scalars(x, y))


def _popcnt(x):
    x = np.asarray(x)
    u = x.view(np.dtype(f"u{x.dtype.itemsize}"))
    bits = np.unpackbits(u.reshape(-1, 1).view(np.uint8), axis=1).sum(axis=1)
    return bits.reshape(x.shape).astype(x.dtype)


population_count_p = unop("population_count", _popcnt, "stablehlo.popcnt", INT)
nondiff(population_count_p)


def population_count(x):
    """The number of set bits of each element."""
    return population_count_p.bind(as_operand(x))


def _clz(x):
    x = np.asarray(x)
    nbits = x.dtype.itemsize * 8
    u = x.view(np.dtype(f"u{x.dtype.itemsize}")).astype(np.uint64)
    out = np.full(x.shape, nbits, np.int64)
    for b in range(nbits):
        out = np.where((u >> np.uint64(b)) & np.uint64(1), nbits - 1 - b, out)
    return out.astype(x.dtype)


clz_p = unop("clz", _clz, "stablehlo.count_leading_zeros", INT)
nondiff(clz_p)


def clz(x):
    """The number of leading zero bits of each element."""
    return clz_p.bind(as_operand(x))
