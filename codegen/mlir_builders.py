"""Lowering rules written with jaxlib's MLIR op builders (`hlo.AddOp(...)`), run
inside astjax's text lowering.

JAX's lowering rules build MLIR operations through jaxlib's Python bindings
(`jaxlib.mlir.ir`, `jaxlib.mlir.dialects.stablehlo` -- JAX's `hlo` --, `func`);
astjax's own rules emit StableHLO text (`codegen/stablehlo.py`). A user's rule of the
first kind, registered with `mlir.register_lowering`, is run here, one equation at a
time: a private `func.func` is built with jaxlib's bindings (one block argument per
operand, typed from the equation's avals), the rule is called with a context
carrying `avals_in`, `avals_out`, `platform` and `module_context`, its results are
returned, and the function's printed text joins astjax's module, called from the
equation's place by `func.call` (XLA inlines it).

Also here: the helpers JAX's `mlir` module gives such rules (`aval_to_ir_type`,
`dtype_to_ir_type`, `ir_constant`), re-exported by `astjax.interpreters.mlir`.
"""
from __future__ import annotations

import types

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir._mlir_libs import _jax_mlir_ext
from jaxlib.mlir.dialects import chlo, stablehlo
from jaxlib.mlir.dialects import func as func_dialect

from .. import dtypes

__all__ = ["ir", "stablehlo", "func_dialect", "new_context", "dtype_to_ir_type",
           "aval_to_ir_type", "ir_constant", "lower_with_builders"]


def new_context() -> ir.Context:
    """An MLIR context with the StableHLO, CHLO, func and the other dialects JAX's
    rules use loaded."""
    registry = ir.DialectRegistry()
    _jax_mlir_ext.register_dialects(registry)   # func, arith, ... as JAX loads them
    context = ir.Context()
    context.append_dialect_registry(registry)
    context.load_all_available_dialects()
    stablehlo.register_dialect(context)
    chlo.register_dialect(context)
    return context


def dtype_to_ir_type(dtype) -> ir.Type:
    """The MLIR element type of a NumPy / astjax dtype (in the active context)."""
    dt = np.dtype(dtypes.canonicalize_dtype(dtype))
    if dt == np.bool_:
        return ir.IntegerType.get_signless(1)
    if dt.kind == "i":
        return ir.IntegerType.get_signless(8 * dt.itemsize)
    if dt.kind == "u":
        return ir.IntegerType.get_unsigned(8 * dt.itemsize)
    if dt.kind == "c":
        return ir.ComplexType.get(dtype_to_ir_type(np.float32 if dt.itemsize == 8
                                                   else np.float64))
    floats = {"float16": ir.F16Type, "float32": ir.F32Type, "float64": ir.F64Type,
              "bfloat16": ir.BF16Type}
    if dt.name in floats:
        return floats[dt.name].get()
    raise TypeError(f"No MLIR type for dtype {dt}")


def aval_to_ir_type(aval) -> ir.Type:
    """The ranked tensor type of an abstract value (shape and dtype)."""
    return ir.RankedTensorType.get(list(aval.shape), dtype_to_ir_type(aval.dtype))


def ir_constant(val) -> ir.Value:
    """A `stablehlo.constant` holding `val` (a scalar or array), as a Value."""
    a = np.asarray(val)
    if a.dtype == np.float64 and not dtypes.config.x64_enabled:
        a = a.astype(np.float32)
    elif a.dtype == np.int64 and not dtypes.config.x64_enabled:
        a = a.astype(np.int32)
    typ = ir.RankedTensorType.get(list(a.shape), dtype_to_ir_type(a.dtype))
    if a.dtype == np.bool_:
        attr = ir.DenseElementsAttr.get(np.packbits(a, bitorder="little"), type=typ)
    else:
        attr = ir.DenseElementsAttr.get(np.ascontiguousarray(a), type=typ)
    return stablehlo.ConstantOp(attr).result


def _flat_values(out):
    """A rule's result (a Value, an op, or a nested sequence of them) as Values."""
    if isinstance(out, ir.Value):
        return [out]
    if isinstance(out, (ir.OpView, ir.Operation)):
        return list(out.results)
    if isinstance(out, (list, tuple)) or hasattr(out, "__len__"):   # (OpResultList too)
        return [v for i in range(len(out)) for v in _flat_values(out[i])]
    raise TypeError(f"a lowering rule returned {type(out).__name__}, not MLIR values")


def lower_with_builders(ctx, rule, prim, operands, params):
    """Run builder rule `rule` for one equation of `prim` (see the module docstring):
    the private function is added to `ctx.mb.functions` and the `func.call` emitted;
    returns the call's results (astjax SSA names)."""
    mb = ctx.mb
    name = f"astjax_rule_{len(mb.functions)}_" + "".join(
        c if c.isalnum() else "_" for c in prim.name)
    with new_context(), ir.Location.unknown():
        module = ir.Module.create()
        in_types = [aval_to_ir_type(a) for a in ctx.avals_in]
        out_types = [aval_to_ir_type(a) for a in ctx.avals_out]
        with ir.InsertionPoint(module.body):
            fn = func_dialect.FuncOp(name, ir.FunctionType.get(in_types, out_types))
            fn.attributes["sym_visibility"] = ir.StringAttr.get("private")
            block = fn.add_entry_block()
        with ir.InsertionPoint(block):
            rule_ctx = types.SimpleNamespace(
                avals_in=list(ctx.avals_in), avals_out=list(ctx.avals_out),
                platform=ctx.platform, primitive=prim, tokens_in=None, tokens_out=None,
                module_context=types.SimpleNamespace(
                    context=module.context, module=module, platforms=(ctx.platform,),
                    backend=None))
            outs = _flat_values(rule(rule_ctx, *block.arguments, **params))
            if len(outs) != len(out_types):
                raise ValueError(f"the lowering rule of {prim.name} returned {len(outs)} "
                                 f"values for {len(out_types)} results")
            func_dialect.ReturnOp(outs)
        if not fn.verify():
            raise ValueError(f"the lowering rule of {prim.name} built an invalid function")
        mb.functions.append(str(fn))
    return mb.op("func.call", list(operands), list(ctx.avals_out), {"callee": f"@{name}"})
