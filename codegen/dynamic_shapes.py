"""Lowering with symbolic dimensions (`jax.export`'s shape polymorphism).

A function exported for shapes such as `f32[b,4]` is lowered once: its tensor types
have `?` for the symbolic dimensions, and the values of the dimension variables are
`tensor<i32>` values of the function being built (`ModuleBuilder.dim_values`, name ->
SSA value: the exported module's `jax.global_constant` arguments). Three things need
the dimensions as values, and this module provides them, in one place for every
lowering rule:

- `dim_value(mb, e)`: a dimension expression computed with StableHLO arithmetic
  (the `dim_as_value` primitive, `x.shape[0]` used as a number);
- `shape_value(mb, shape)`: a `tensor<Nxi32>` of a shape's sizes;
- `dynamic_op(mb, name, ...)`: the operations whose static form fixes the result's
  shape in an attribute or the result type (`broadcast_in_dim`, `reshape`, `iota`,
  splat constants) emitted as their dynamic forms taking `shape_value`.

`dimension_values` computes the variables at a module's entry from its arguments'
sizes (each variable by the step `shape_poly.solution_plan` found:
`get_dimension_size`, then integer arithmetic) and asserts what JAX asserts -- every
variable >= 1, every other dimension equal to its specification, the scope's
constraints -- by `shape_assertion` custom calls. When the module is compiled for concrete shapes, jaxlib's shape refinement
(`compile_cache.refine_polymorphic_shapes`) turns every `?` back into a number and
checks the assertions, reporting JAX's message.
"""
from __future__ import annotations

import numpy as np

from astjax.errors import JAXValueError
from astjax.ir import ShapedArray
from astjax.shape_poly import DimExpr, evaluate, solution_plan, variables
from astjax.shape_poly_solve import constraint_checks, constraint_error, spec_text

__all__ = ["is_dynamic", "dim_value", "shape_value", "dynamic_op", "DYNAMIC_FORMS",
           "I32", "dimension_values", "splat_constant"]

I32 = ShapedArray((), np.int32)

# static op -> its dynamic form, which takes the result shape as its last operand
DYNAMIC_FORMS = {"stablehlo.broadcast_in_dim": "stablehlo.dynamic_broadcast_in_dim",
                 "stablehlo.reshape": "stablehlo.dynamic_reshape",
                 "stablehlo.iota": "stablehlo.dynamic_iota"}


def is_dynamic(aval) -> bool:
    """Whether `aval`'s shape has a symbolic dimension."""
    return any(type(d) is not int for d in getattr(aval, "shape", ()))


class _HloOps:
    """`shape_poly.evaluate`'s arithmetic on `tensor<i32>` values of `mb`."""

    def __init__(self, mb):
        self.mb = mb

    def const(self, k):
        return self.mb.constant(np.int32(k), I32)

    def _bin(self, name, a, b):
        return self.mb.op(name, [a, b], [I32])[0]

    def add(self, a, b):
        return self._bin("stablehlo.add", a, b)

    def mul(self, a, b):
        return self._bin("stablehlo.multiply", a, b)

    def max(self, a, b):
        return self._bin("stablehlo.maximum", a, b)

    def min(self, a, b):
        return self._bin("stablehlo.minimum", a, b)

    def floordiv(self, a, b):
        # floor division from the truncating `divide`: one less when the signs differ
        # and the remainder is not zero
        q = self._bin("stablehlo.divide", a, b)
        r = self._bin("stablehlo.remainder", a, b)
        zero = self.const(0)
        bool_ = ShapedArray((), np.bool_)
        cmp = lambda x, y, d: self.mb.op(   # noqa: E731
            "stablehlo.compare", [x, y], [bool_],
            {"comparison_direction": f"#stablehlo<comparison_direction {d}>"})[0]
        signs = cmp(cmp(r, zero, "LT"), cmp(b, zero, "LT"), "NE")
        adjust = self.mb.op("stablehlo.and", [signs, cmp(r, zero, "NE")], [bool_])[0]
        return self.mb.op("stablehlo.select", [adjust, self._bin(
            "stablehlo.subtract", q, self.const(1)), q], [I32])[0]

    def mod(self, a, b):
        return self._bin("stablehlo.subtract", a, self.mul(self.floordiv(a, b), b))


def dim_value(mb, e) -> str:
    """A `tensor<i32>` holding dimension `e` (an int or a symbolic expression)."""
    if type(e) is int:
        return mb.constant(np.int32(e), I32)
    return evaluate(e, mb.dim_values, _HloOps(mb))


def shape_value(mb, shape) -> str:
    """A `tensor<Nxi32>` holding the sizes of `shape`."""
    one = ShapedArray((1,), np.int32)
    parts = [mb.op("stablehlo.reshape", [dim_value(mb, d)], [one])[0] for d in shape]
    if len(parts) == 1:
        return parts[0]
    if not parts:
        return mb.constant(np.zeros((0,), np.int32), ShapedArray((0,), np.int32))
    return mb.op("stablehlo.concatenate", parts, [ShapedArray((len(parts),), np.int32)],
                 {"dimension": "0 : i64"})[0]


def dynamic_op(mb, name, operands, out_aval, attrs):
    """`name` (a key of `DYNAMIC_FORMS`) with a symbolic result shape, emitted as its
    dynamic form with the result shape as a value."""
    shape = shape_value(mb, out_aval.shape)
    return mb.op(DYNAMIC_FORMS[name], [*operands, shape], [out_aval], attrs)[0]


def splat_constant(mb, value, aval) -> str:
    """A constant of symbolic shape `aval.shape`: all its elements equal."""
    flat = np.ravel(np.asarray(value))
    if flat.size and not (flat == flat[0]).all():
        raise JAXValueError(f"a constant of symbolic shape {aval.str_short(True)} must have "
                            "equal elements")
    scalar = mb.constant(flat[0] if flat.size else 0, ShapedArray((), aval.dtype))
    return dynamic_op(mb, "stablehlo.broadcast_in_dim", [scalar], aval,
                      {"broadcast_dimensions": "array<i64>"})


# ------------------------------------------------ the dimension variables' values

_ASSERTION_DOCS = "https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors"


def _assert(mb, pred, values, message):
    """A `shape_assertion` custom call: an error with `message` ({0}, {1}: `values`)
    when `pred` is false."""
    msg = message.replace("\\", "\\\\").replace('"', '\\"')
    mb.op("stablehlo.custom_call", [pred, *values], [],
          {"call_target_name": '"shape_assertion"', "api_version": "2 : i32",
           "has_side_effect": "true", "error_message": f'"{msg}"'})


def _compare(mb, x, y, direction):
    return mb.op("stablehlo.compare", [x, y], [ShapedArray((), np.bool_)],
                 {"comparison_direction": f"#stablehlo<comparison_direction {direction}>",
                  "compare_type": "#stablehlo<comparison_type SIGNED>"})[0]


def dimension_values(mb, in_avals, args) -> list[str]:
    """In `mb` (the entry function), the `tensor<i32>` values of the dimension
    variables of `in_avals` (in `shape_poly.variables` order), computed from the
    arguments `args` (SSA names), after JAX's shape assertions."""
    shapes = [a.shape for a in in_avals]
    names = [f"args[{i}]" for i in range(len(shapes))]
    plan = solution_plan(shapes)
    sizes: dict = {}

    def size(i, axis):
        if (i, axis) not in sizes:
            sizes[i, axis] = mb.op("stablehlo.get_dimension_size", [args[i]], [I32],
                                   {"dimension": f"{axis} : i64"})[0]
        return sizes[i, axis]
    mb.dim_values = {}
    for v, i, axis, k, rest in plan:
        num = size(i, axis) if rest == 0 else mb.op(
            "stablehlo.subtract", [size(i, axis), mb.dim_value(rest)], [I32])[0]
        mb.dim_values[v] = num if k == 1 else mb.op(
            "stablehlo.divide", [num, mb.dim_value(k)], [I32])[0]
    head = "Input shapes do not match the polymorphic shapes specification."

    def check(pred, values, message, known=None):
        # every message ends with the variables' values and their dimensions' sizes,
        # placeholders after its own; a variable that is its dimension's size (`n`
        # of `(n,)`) is one placeholder, as JAX formats one expression once
        known = plan if known is None else known
        inputs, how = list(values), []
        for v, i, axis, k, rest in known:
            inputs.append(mb.dim_values[v])
            at = len(inputs) - 1
            if k != 1 or rest != 0:
                inputs.append(size(i, axis))
            how.append(f"'{v}' = {{{at}}} from specification '{shapes[i][axis]}' for "
                       f"dimension {names[i]}.shape[{axis}] (= {{{len(inputs) - 1}}}), ")
        how = "".join(how)
        _assert(mb, pred, inputs,
                f"{message}. Using the following polymorphic shapes specifications: "
                f"{spec_text(names, shapes)}. Obtained dimension variables: {how}. "
                f"Please see {_ASSERTION_DOCS} for more details.")
    one, zero = mb.dim_value(1), mb.dim_value(0)
    for j, (v, i, axis, k, rest) in enumerate(plan):
        if k != 1:
            r = mb.op("stablehlo.remainder", [mb.op(
                "stablehlo.subtract", [size(i, axis), mb.dim_value(rest)], [I32])[0],
                mb.dim_value(k)], [I32])[0]
            check(_compare(mb, r, zero, "EQ"), [r], f"{head} Division had remainder {{0}} "
                  f"when computing the value of '{v}'", known=plan[:j])
        check(_compare(mb, mb.dim_values[v], one, "GE"), [],
              f"{head} Expected value >= 1 for dimension variable '{v}'", known=plan[:j + 1])
    for i, shape in enumerate(shapes):
        for axis, d in enumerate(shape):
            if not isinstance(d, DimExpr) or any(p[1:3] == (i, axis) for p in plan):
                continue
            want = mb.dim_value(d)
            check(_compare(mb, size(i, axis), want, "EQ"), [size(i, axis), want],
                  f"{head} Found inconsistency between dimension size {names[i]}.shape[{axis}] "
                  f"(= {{0}}) and the specification '{d}' (= {{1}})")
    scope = next((d.scope for s in shapes for d in s if isinstance(d, DimExpr)), None)
    for text, g, eq in constraint_checks(scope, mb.dim_values):
        val = mb.dim_value(g)
        check(_compare(mb, val, zero, "EQ" if eq else "GE"), [val],
              constraint_error(text, g, eq, "{0}") + ". ")
    return [mb.dim_values[v] for v in variables(shapes)]



