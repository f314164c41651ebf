"""`astjax.interpreters.mlir` (JAX's `jax.interpreters.mlir`): lowering registration.

astjax writes StableHLO itself (codegen/stablehlo.py). A lowering a library registers
is either built by `lower_fun(fun)` -- `fun` (a function of `jnp` / `lax` operations
on the operands, with the equation's params as keywords) is staged on the operands'
avals and its program inlined -- or written against jaxlib's MLIR Python builders
(`hlo.AddOp(...)`, `ir` types, `aval_to_ir_type`, `ir_constant`), run one equation
at a time into a private function of the module (codegen/mlir_builders.py)."""
from __future__ import annotations

from .. import core
from ..errors import NotImplementedInAstjaxError
from ..codegen.mlir_builders import (aval_to_ir_type, dtype_to_ir_type, ir,  # noqa: F401
                                     ir_constant, lower_with_builders)
from ..primitives.base import lowering_from

__all__ = ["register_lowering", "lower_fun", "ir", "aval_to_ir_type", "dtype_to_ir_type",
           "ir_constant"]


class _LowerFun:
    """A lowering rule made from a Python function (see the module docstring);
    returns the list of lowered outputs."""

    def __init__(self, fun, multiple_results):
        self.fun = fun
        self.multiple_results = multiple_results
        self._rule = lowering_from(fun, multiple_results)

    def __call__(self, ctx, *args, **params):
        out = self._rule(ctx, *args, **params)
        return out if self.multiple_results else [out]


def lower_fun(fun, multiple_results: bool = True):
    """A lowering rule that stages `fun(*operands, **params)` and inlines it."""
    return _LowerFun(fun, multiple_results)


class _PlatformRules:
    """A primitive's lowering: one rule per platform (None: every platform), each
    with whether it follows astjax's convention (astjax's own and the impl-derived
    rules) or is a library's `lower_fun` rule (or an unusable JAX-MLIR rule)."""

    def __init__(self, prim):
        self.prim = prim
        self.rules = {}  # platform -> (rule, native)

    def __call__(self, ctx, *args, **params):
        rule, native = self.rules.get(ctx.platform, self.rules.get(None, (None, False)))
        if rule is None:
            missing = getattr(self.prim, "missing_rule_error", None)   # JAX's exact class
            if missing is not None:
                raise missing("lowering", ctx.platform)
            raise NotImplementedInAstjaxError(
                f"MLIR translation rule for primitive '{self.prim.name}' not found for "
                f"platform {ctx.platform}")
        if native:
            return rule(ctx, *args, **params)
        if isinstance(rule, _LowerFun):
            outs = rule(ctx, *args, **params)
        else:   # a rule written with jaxlib's MLIR builders (`hlo.AddOp(...)`)
            outs = lower_with_builders(ctx, rule, self.prim, args, params)
        return outs if self.prim.multiple_results else outs[0]


def register_lowering(prim, rule, platform: str | None = None):
    """Set `prim`'s lowering (for one platform: 'cpu', 'cuda', 'rocm', 'tpu', or all);
    returns `rule`."""
    if not isinstance(prim, core.Primitive):
        raise TypeError(f"register_lowering needs a Primitive, got {prim!r}")
    table = prim.lowering if isinstance(prim.lowering, _PlatformRules) else None
    if table is None:
        table = _PlatformRules(prim)
        if prim.lowering is not None and not hasattr(prim.lowering, "available"):
            # the rule it had stays the default (not an impl standing in for one)
            table.rules[None] = (prim.lowering, True)
        prim.lowering = table
    table.rules["cuda" if platform == "gpu" else platform] = (rule, False)
    prim.unsupported.pop("lowering", None)
    return rule
