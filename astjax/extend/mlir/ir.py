"""`astjax.extend.mlir.ir` (JAX's `jax.extend.mlir.ir`): jaxlib's MLIR core bindings
(`Context`, `Location`, `Module`, `RankedTensorType`, `IntegerAttr`, ...)."""
from jaxlib.mlir.ir import *  # noqa: F401,F403
