"""`jax.export`: serialize a jitted function's StableHLO for later use, in this
process or another.

    exp = export.export(jit(f))(jnp.ones(3))        # or ShapeDtypeStructs
    blob = exp.serialize()                           # bytes
    export.deserialize(blob).call(x)                 # runs f's program

`Exported` and `export` (astjax/export/exported.py) carry JAX's fields and methods;
the module and its checks are made by astjax/export/lowering.py; `Exported.call`
runs it eagerly, inside `jit` and under `grad` (astjax/export/calling.py); the byte
format is JAX's FlatBuffers schema (astjax/export/serialization.py, read and written
by astjax/export/flatbuffer.py), so artifacts go both ways between JAX and astjax.
Shape polymorphism: `symbolic_shape("b, 4")` gives symbolic dimensions
(astjax/shape_poly.py) to export with, `symbolic_args_specs` the specs of a pytree of
arguments (astjax/export/polymorphic.py); the module keeps `?` dimensions and a call
refines them to the arguments' shapes.
"""
from .lowering import (DisabledSafetyCheck, default_export_platform,
                       maximum_supported_calling_convention_version,
                       minimum_supported_calling_convention_version)
from .exported import Exported, deserialize, export
from .serialization import register_namedtuple_serialization, register_pytree_node_serialization
from .polymorphic import symbolic_args_specs
from ..shape_poly import SymbolicScope, is_symbolic_dim, symbolic_shape

__all__ = ["DisabledSafetyCheck", "Exported", "export", "deserialize",
           "register_pytree_node_serialization", "register_namedtuple_serialization",
           "maximum_supported_calling_convention_version",
           "minimum_supported_calling_convention_version", "default_export_platform",
           "symbolic_shape", "symbolic_args_specs", "is_symbolic_dim", "SymbolicScope"]
