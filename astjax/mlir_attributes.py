"""Python values as MLIR types and attributes (jaxlib's `ir` bindings), in the active
MLIR context: what JAX's `mlir.dtype_to_ir_type` and `mlir.ir_attribute` give.

Two users: lowering rules written with jaxlib's builders (codegen/mlir_builders.py
re-exports both names) and the text lowering of `ffi_call` (the call's keyword
attributes, printed by `dictionary_text`: astjax/primitives/ffi_call.py).
"""
from __future__ import annotations

from typing import Any

import numpy as np
from jaxlib.mlir import ir

from . import dtypes
from .errors import JAXTypeError

__all__ = ["dtype_to_ir_type", "ir_attribute", "dictionary_text"]


def dtype_to_ir_type(dtype) -> ir.Type:
    """The MLIR element type of a NumPy / astjax dtype (in the active context), as
    given (not canonicalized: int64 is i64 with x64 off too, as in JAX)."""
    dt = dtypes.dtype(dtype)
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


def _array_attribute(a: np.ndarray) -> ir.Attribute:
    if a.ndim == 0:   # a scalar: a typed scalar attribute, as JAX gives FFI attributes
        if a.dtype == np.bool_:
            return ir.BoolAttr.get(bool(a))
        if a.dtype.kind in "iu":
            return ir.IntegerAttr.get(dtype_to_ir_type(a.dtype), int(a))
        if a.dtype.kind == "f":
            return ir.FloatAttr.get(dtype_to_ir_type(a.dtype), float(a))
    if a.dtype == np.bool_:
        return ir.DenseElementsAttr.get(np.packbits(a, bitorder="little"),
                                        type=ir.RankedTensorType.get(list(a.shape),
                                                                     dtype_to_ir_type(a.dtype)))
    return ir.DenseElementsAttr.get(np.ascontiguousarray(a), type=dtype_to_ir_type(a.dtype),
                                    shape=list(a.shape))


def ir_attribute(val: Any) -> ir.Attribute:
    """JAX's `ir_attribute`: a Python value as an MLIR attribute. Python scalars keep
    64 bits (`int` -> i64, `float` -> f64), NumPy scalars and arrays their dtype,
    strings become string attributes, dicts / lists / tuples dictionary / array
    attributes, a dtype a type attribute; attributes and types pass through."""
    if isinstance(val, (ir.Attribute, ir.Type)):
        return val
    if isinstance(val, bool):
        return ir.BoolAttr.get(val)
    if isinstance(val, int):
        return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), val)
    if isinstance(val, float):
        return ir.FloatAttr.get(ir.F64Type.get(), val)
    if isinstance(val, (str, bytes)):
        return ir.StringAttr.get(val)
    if isinstance(val, dict):
        return ir.DictAttr.get({k: ir_attribute(v) for k, v in val.items()})
    if isinstance(val, (list, tuple)):
        return ir.ArrayAttr.get([ir_attribute(v) for v in val])
    if isinstance(val, np.dtype) or (isinstance(val, type) and issubclass(val, np.generic)):
        return ir.TypeAttr.get(dtype_to_ir_type(val))
    if isinstance(val, (np.ndarray, np.generic)):
        return _array_attribute(np.asarray(val))
    if hasattr(val, "__array__"):
        return _array_attribute(np.asarray(val))
    raise JAXTypeError(f"No MLIR attribute for a value of type {type(val).__name__}: {val!r}")




def dictionary_text(values: dict) -> str:
    """`{name = attribute, ...}`: the MLIR text of the dictionary attribute of
    `values` (each converted by `ir_attribute`), names sorted as MLIR prints them."""
    with ir.Context(), ir.Location.unknown():
        return str(ir.DictAttr.get({k: ir_attribute(v) for k, v in values.items()}))
