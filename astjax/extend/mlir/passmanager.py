"""`astjax.extend.mlir.passmanager` (JAX's `jax.extend.mlir.passmanager`): jaxlib's
MLIR `PassManager`, to run passes over a module parsed with `ir`."""
from jaxlib.mlir.passmanager import *  # noqa: F401,F403
