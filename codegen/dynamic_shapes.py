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

When the module is compiled for concrete shapes, jaxlib's shape refinement
(`runtime`'s `refine_polymorphic_shapes`) turns every `?` back into a number.
"""
from __future__ import annotations

import numpy as np

from astjax.ir import ShapedArray
from astjax.shape_poly import evaluate

__all__ = ["is_dynamic", "dim_value", "shape_value", "dynamic_op", "DYNAMIC_FORMS",
           "I32"]

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
    return mb.op(DYNAMIC_FORMS[name], [*operands, shape], [out_aval], attrs)


def splat_constant(mb, value, aval) -> str:
    """A constant of symbolic shape `aval.shape`: all its elements equal."""
    flat = np.ravel(np.asarray(value))
    if flat.size and not (flat == flat[0]).all():
        raise ValueError("a constant of symbolic shape must have equal elements")
    scalar = mb.constant(flat[0] if flat.size else 0, ShapedArray((), aval.dtype))
    return dynamic_op(mb, "stablehlo.broadcast_in_dim", [scalar], aval,
                      {"broadcast_dimensions": "array<i64>"})
