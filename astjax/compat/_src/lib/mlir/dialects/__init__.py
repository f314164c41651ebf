"""`jax._src.lib.mlir.dialects`: jaxlib's MLIR dialect bindings under JAX's names --
`hlo` is StableHLO (also as `stablehlo`), with `func`, `chlo`, `arith`, `sdy`."""
from __future__ import annotations

from jaxlib.mlir.dialects import arith, chlo, func, sdy, stablehlo  # noqa: F401
from jaxlib.mlir.dialects import stablehlo as hlo  # noqa: F401

__all__ = ["hlo", "stablehlo", "func", "chlo", "arith", "sdy"]
