"""`astjax.extend.mlir.dialects` (JAX's `jax.extend.mlir.dialects`): jaxlib's dialect
op builders — `stablehlo` (what JAX's own rules call `hlo`), `chlo`, `func`, `arith`,
`math`, `scf`, `vector`, `memref`, `sparse_tensor`, `sdy` (Shardy) and `builtin` —
as `from astjax.extend.mlir.dialects import stablehlo` reaches them."""
from jaxlib.mlir.dialects import (arith, builtin, chlo, func, math, memref,  # noqa: F401
                                  scf, sdy, sparse_tensor, stablehlo, vector)

__all__ = ["arith", "builtin", "chlo", "func", "math", "memref", "scf", "sdy",
           "sparse_tensor", "stablehlo", "vector"]
