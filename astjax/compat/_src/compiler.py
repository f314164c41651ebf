"""`jax._src.compiler`: `backend_compile_and_load`, StableHLO text (or an MLIR module
object's text) -> an executable loaded on the backend's devices, through astjax's
runtime and its compile cache.

chex's `restrict_backends` wraps this attribute to forbid compiling for a platform.
astjax's own `jit` compiles through `codegen.runtime` directly, not through this
module, so that wrapping restricts only code that calls `backend_compile_and_load`."""
from __future__ import annotations

from astjax.codegen import runtime as _runtime


def backend_compile_and_load(backend, module, executable_devices, options,
                             host_callbacks=()):
    """Compile `module` (StableHLO text or an object whose `str` is the text) for
    `executable_devices` (default: the backend's first device) with XLA
    `CompileOptions`."""
    text = module if isinstance(module, str) else str(module)
    devs = list(executable_devices) if executable_devices else [backend.devices()[0]]
    return _runtime.compile_mlir(text, devs, options)


backend_compile = backend_compile_and_load
