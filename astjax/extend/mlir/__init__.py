"""`astjax.extend.mlir` (JAX's `jax.extend.mlir`): jaxlib's MLIR Python bindings for
lowering rules written with op builders — `ir` (types, attributes, `Context`),
`passmanager`, `dialects` (`stablehlo`, `chlo`, `func`, `arith`, ...) — the same
objects astjax's builder-rule lowering runs (codegen/mlir_builders.py), so a rule
registered with `astjax.interpreters.mlir.register_lowering` can build with them.
Also jaxlib's StableHLO serialization entry points, under JAX's names:
`serialize_portable_artifact(module_text, target_version)` and its inverse,
`hlo_to_stablehlo(hlo_proto_bytes)`, `refine_polymorphic_shapes(module_bytes, ...)`."""
from jaxlib import _jax as _jaxlib

from . import dialects, ir, passmanager  # noqa: F401

__all__ = ["ir", "passmanager", "dialects", "serialize_portable_artifact",
           "deserialize_portable_artifact", "hlo_to_stablehlo", "refine_polymorphic_shapes"]

serialize_portable_artifact = _jaxlib.mlir.serialize_portable_artifact
deserialize_portable_artifact = _jaxlib.mlir.deserialize_portable_artifact
hlo_to_stablehlo = _jaxlib.mlir.hlo_to_stablehlo
refine_polymorphic_shapes = _jaxlib.mlir.refine_polymorphic_shapes
