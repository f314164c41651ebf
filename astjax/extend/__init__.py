"""`astjax.extend` (JAX's `jax.extend`): what libraries use to add primitives and to
read staged programs — `core` (Primitive, Jaxpr, ...), `linear_util`, `lowering`
(the context of an MLIR lowering rule), `mlir` (jaxlib's MLIR bindings), `backend` (the
PJRT client and default device), `xla` (custom XLA compiler passes). A primitive
made here gets its rules through the views in `astjax.interpreters` and then works
under `jit`, `grad`, `vmap` and `astjax.source` like astjax's own."""
from . import backend, core, linear_util, lowering, mlir, source_info_util, xla  # noqa: F401
from . import sharding  # noqa: F401  (XLA's sharding protos: jax.extend.sharding)
