"""`jax._src.interpreters.mlir`: what rules written against JAX's private lowering
module use -- everything `jax.interpreters.mlir` has (astjax.interpreters.mlir), plus
`custom_call` (a `stablehlo.custom_call` op with JAX's keywords), the op helpers JAX's
own rules use (`broadcast_in_dim`, `full_like_aval`, `compare_hlo`, `convert_hlo`), the
`hlo` dialect and `LoweringRule`. The builder-rule machinery behind them is codegen/mlir_builders.py."""
from __future__ import annotations

from typing import Any, Callable

from ....codegen.mlir_builders import (broadcast_in_dim, compare_hlo,  # noqa: F401
                                       convert_hlo, custom_call, full_like_aval)
from ....interpreters.mlir import *  # noqa: F401,F403
from ....interpreters.mlir import __all__ as _public
from ..lib.mlir.dialects import hlo  # noqa: F401

# a lowering rule: (ctx, *operand values, **params) -> result values
LoweringRule = Callable[..., Any]

__all__ = list(_public) + ["custom_call", "broadcast_in_dim", "full_like_aval", "compare_hlo",
                           "convert_hlo", "hlo", "LoweringRule"]
