"""astjax: JAX's programming model by source transformation.

`import astjax as jax` runs JAX programs: `jit`, `grad`, `vmap`, `make_jaxpr`,
`astjax.numpy`, `astjax.lax`, ... — staged from the function's source, so Python
`if`/`while`/`for` on array values work under `jit`.
"""
import os as _os

_os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")  # before anything imports jaxlib

from . import config as _config_mod
from .config import config
from . import dtypes, core, errors, tree_util
from . import primitives  # noqa: F401  (registers every primitive)
from .codegen import runtime as _runtime
from .codegen.runtime import Device
from typing import TYPE_CHECKING as _TYPE_CHECKING
if _TYPE_CHECKING:  # what a type checker sees: the array surface (astjax/typing.py)
    from .typing import Array
else:
    from .core import Array  # abstract: staged values and device arrays are instances
Array.register(_runtime.Array)
from . import lax, numpy
from . import random, nn, scipy, tree  # noqa: F401  (array API breadth)
from .api import (jit, function, make_jaxpr, eval_shape, ShapeDtypeStruct, device_put,
                  device_get, devices, local_devices, device_count, local_device_count,
                  block_until_ready, default_backend, typeof)
from .errors import AstjaxError
from .frontend.loop_ops import unroll
from .source_api import source, source_function  # noqa: E402
from .batching_api import vmap  # noqa: E402

numpy.ndarray = Array
__version__ = "0.1.0"
from .ad_api import (grad, value_and_grad, jvp, vjp, linearize, jacfwd, jacrev, hessian,  # noqa: E402
                     float0)
from .checkpoint_api import checkpoint, remat  # noqa: E402
from .custom_api import custom_jvp, custom_vjp  # noqa: E402
from .pmap_api import pmap  # noqa: E402
from . import flatten_util, test_util, typing  # noqa: E402,F401
from . import sharding  # noqa: E402,F401
from . import extend, interpreters, stages  # noqa: E402,F401
from .extend import random as _extend_random  # noqa: E402,F401  (a library above random: loaded here so `astjax.extend.random` is set)
from .random.key_reuse import debug_key_reuse  # noqa: E402,F401  (branch ext: the key-reuse checker's flag)
from . import debug  # noqa: E402,F401
from . import ffi  # noqa: E402,F401
from . import example_libraries  # noqa: E402,F401
from .naming import named_call, named_scope  # noqa: E402,F401
from .callbacks_api import pure_callback  # noqa: E402,F401
from .callbacks_api import effects_barrier  # noqa: E402,F401
from .sharding import PartitionSpec as P, set_mesh  # noqa: E402,F401
from .api import make_mesh, process_index, process_count  # noqa: E402,F401
from . import distributed  # noqa: E402,F401
from .sharding import reshard  # noqa: E402,F401
from .pmap_api import shard_map_public as shard_map, smap  # noqa: E402,F401
from .codegen.sharded import (make_array_from_callback,  # noqa: E402,F401
                              make_array_from_single_device_arrays,
                              make_array_from_process_local_data)
from .jax_alias import install_as_jax  # noqa: E402

jacobian = jacrev  # JAX's `jax.jacobian` is reverse mode
from .config_api import (disable_jit, ensure_compile_time_eval, clear_caches,  # noqa: E402,F401
                         live_arrays, print_environment_info, enable_x64, debug_nans,
                         debug_infs, numpy_rank_promotion, numpy_dtype_promotion,
                         default_matmul_precision, log_compiles, default_device,
                         threefry_partitionable)
from .config_api import (host_count, host_id, host_ids, process_indices,  # noqa: E402,F401
                         copy_to_host_async)
from .config_guards import (transfer_guard, transfer_guard_host_to_device,  # noqa: E402,F401
                            transfer_guard_device_to_device, transfer_guard_device_to_host,
                            no_tracing, no_execution, enable_checks, check_tracer_leaks,
                            checking_leaks, explain_cache_misses, make_user_context,
                            jax2tf_associative_scan_reductions, thread_guard,
                            legacy_prng_key, enable_custom_prng, allow_f16_reductions,
                            default_prng_impl, softmax_custom_jvp, auto_pcast)
from .ad_extras import linear_transpose, custom_gradient, fwd_and_bwd  # noqa: E402,F401
from .compat.ad_checkpoint import checkpoint_policies  # noqa: E402,F401
from .compat.custom_derivatives import closure_convert  # noqa: E402,F401
from .sharding import NamedSharding  # noqa: E402,F401
from .codegen.runtime import Shard  # noqa: E402,F401
# jax.export, jax.profiler, jax.memory and the last config states (issue 13)
from . import export, profiler, memory  # noqa: E402,F401
from .config_guards import (array_garbage_collection_guard,  # noqa: E402,F401
                            remove_size_one_mesh_axis_from_type)

# Submodules JAX exposes as attributes of `jax` (imported here: together ~10 ms of
# `import astjax`, measured with -X importtime; the layering rules ban lazy hooks)
from .compat import (ad_checkpoint, custom_derivatives, dlpack, experimental,  # noqa: E402,F401
                     lib, version)
from . import api_util, custom_batching, image, monitoring, ops  # noqa: E402,F401
from .numpy.indexing import ds  # noqa: E402,F401
# mutable array references (`jax.ref`, `jax.new_ref`, ...)
from . import ref  # noqa: E402,F401
from .ref import Ref, empty_ref, free_ref, freeze, new_ref  # noqa: E402,F401
from . import ad_refs as ad  # noqa: E402,F401  (`jax.ad`: GradRef, GradValue, DontWant, DidntWant)
# The public names (`from astjax import *`, and what a type checker takes as exported:
# `mypy --strict` reads only these as re-exports). tests/test_typing.py keeps it complete.
__all__ = [
    "Ref", "ad", "empty_ref", "free_ref", "freeze", "new_ref", "ref",
    "Array", "AstjaxError", "Device", "allow_f16_reductions", "auto_pcast", "default_prng_impl", "softmax_custom_jvp", "NamedSharding", "P", "Shard", "ShapeDtypeStruct",
    "ad_checkpoint", "api_util", "block_until_ready", "check_tracer_leaks", "checking_leaks",
    "closure_convert", "copy_to_host_async", "custom_batching", "fwd_and_bwd", "lib", "monitoring", "ops", "custom_derivatives", "dlpack", "ds", "enable_checks",
    "experimental", "explain_cache_misses", "host_count", "host_id", "host_ids", "image",
    "jax2tf_associative_scan_reductions", "make_user_context", "no_execution", "no_tracing",
    "process_indices", "smap", "thread_guard", "legacy_prng_key", "enable_custom_prng",
    "transfer_guard", "transfer_guard_device_to_device",
    "transfer_guard_device_to_host", "transfer_guard_host_to_device", "version",
    "checkpoint", "checkpoint_policies", "clear_caches", "config", "core", "custom_gradient",
    "custom_jvp",
    "custom_vjp", "debug", "debug_infs", "debug_key_reuse", "debug_nans", "default_backend", "default_device",
    "default_matmul_precision", "device_count", "device_get", "device_put", "devices",
    "disable_jit", "distributed", "dtypes", "effects_barrier", "enable_x64",
    "ensure_compile_time_eval", "errors", "eval_shape", "example_libraries", "extend", "ffi",
    "flatten_util", "float0", "function", "grad", "hessian", "install_as_jax",
    "interpreters", "jacfwd", "jacobian", "jacrev", "jit", "jvp", "lax", "linear_transpose",
    "linearize", "live_arrays", "local_device_count", "local_devices", "log_compiles",
    "make_array_from_callback", "make_array_from_process_local_data",
    "make_array_from_single_device_arrays", "make_jaxpr", "make_mesh", "named_call",
    "named_scope", "nn", "numpy", "numpy_dtype_promotion", "numpy_rank_promotion", "pmap",
    "print_environment_info", "process_count", "process_index", "pure_callback", "random",
    "remat", "reshard", "scipy", "set_mesh", "shard_map", "sharding", "source",
    "source_function", "stages", "test_util", "threefry_partitionable",
    "tree", "tree_util", "typeof", "typing", "unroll", "value_and_grad", "vjp", "vmap",
    "export", "profiler", "memory", "array_garbage_collection_guard",
    "remove_size_one_mesh_axis_from_type",
]
