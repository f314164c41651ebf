"""`astjax.extend.lowering` (JAX's `jax.extend.lowering`): `LoweringRuleContext`, the
first argument of a lowering rule written against jaxlib's MLIR builders and
registered with `astjax.interpreters.mlir.register_lowering` (its `avals_in`,
`avals_out`, `module_context`, ...; see codegen/mlir_builders.py)."""
from ..codegen.mlir_builders import LoweringRuleContext  # noqa: F401

__all__ = ["LoweringRuleContext"]
