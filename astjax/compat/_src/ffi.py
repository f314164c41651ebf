"""`jax._src.ffi`: the module real programs import to lower their own primitives to FFI
calls (`from jax._src import ffi` then `ffi.ffi_lowering("target")` inside a lowering
rule, e.g. sparse-matrix kernels forwarded from jaxlib), served by `astjax.ffi`.

It holds the public names of `jax.ffi` and those of the module JAX's own code and such
libraries reach for: the `ffi_call` primitive (`ffi_call_p`) and the hashable
attribute wrappers (`HashableArray`, `FrozenDict`). JAX's private helpers
(`_result_avals`, `_aval_shape`, ...) are not provided.
"""
from ...ffi import (build_ffi_lowering_function, ffi_call, ffi_lowering,  # noqa: F401
                    include_dir, pycapsule, register_ffi_target,
                    register_ffi_target_as_batch_partitionable, register_ffi_type,
                    register_ffi_type_id)
from ...primitives.ffi_call import FrozenDict, HashableArray, ffi_call_p  # noqa: F401

__all__ = ["build_ffi_lowering_function", "ffi_call", "ffi_lowering", "include_dir",
           "pycapsule", "register_ffi_target", "register_ffi_target_as_batch_partitionable",
           "register_ffi_type", "register_ffi_type_id", "ffi_call_p", "HashableArray",
           "FrozenDict"]
