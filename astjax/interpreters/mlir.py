"""`astjax.interpreters.mlir` (JAX's `jax.interpreters.mlir`): lowering registration.

astjax writes StableHLO itself (codegen/stablehlo.py). A lowering a library registers
is either built by `lower_fun(fun)` -- `fun` (a function of `jnp` / `lax` operations
on the operands, with the equation's params as keywords) is staged on the operands'
avals and its program inlined -- or written against jaxlib's MLIR Python builders
(`hlo.AddOp(...)`, `ir` types, `aval_to_ir_type`, `ir_constant`, `custom_call`), run
one equation at a time into a private function of the module, with JAX's
`LoweringRuleContext` (codegen/mlir_builders.py). Such a rule may itself call a
`lower_fun` rule on its MLIR values."""
from __future__ import annotations

from .. import core
from ..errors import AstjaxError, NotImplementedInAstjaxError
from ..codegen.mlir_builders import (  # noqa: F401
    LoweringRuleContext, ModuleContext, TokenSet, aval_to_ir_type, aval_to_ir_types,
    custom_call, dense_int_array, dense_int_elements, dtype_to_ir_type, emit_python_callback,
    i32_attr, i64_attr,
    ir, ir_attribute, ir_constant, lower_fun_with_builders, lower_with_builders)
from ..primitives.base import lowering_from

__all__ = ["register_lowering", "lower_fun", "ir", "aval_to_ir_type", "aval_to_ir_types",
           "dtype_to_ir_type", "ir_constant", "ir_attribute", "i32_attr", "i64_attr",
           "dense_int_array", "dense_int_elements", "custom_call", "TokenSet",
           "ModuleContext", "LoweringRuleContext", "token_type", "emit_python_callback"]

# the platforms a rule may be registered for (JAX's known platforms; "gpu" stands
# for both CUDA and ROCm)
_PLATFORMS = ("cpu", "cuda", "gpu", "oneapi", "rocm", "tpu")


class UnknownPlatformError(AstjaxError, NotImplementedError):
    """A lowering rule registered for a platform JAX does not know (JAX raises
    NotImplementedError)."""
    default_hint = f"register for one of {', '.join(_PLATFORMS)}, or None for all"


def token_type() -> ir.Type:
    """The MLIR type of an effect token (`!stablehlo.token`)."""
    return ir.Type.parse("!stablehlo.token")


class _LowerFun:
    """A lowering rule made from a Python function (see the module docstring);
    returns the list of lowered outputs."""

    def __init__(self, fun, multiple_results):
        self.fun = fun
        self.multiple_results = multiple_results
        self._rule = lowering_from(fun, multiple_results)

    def __call__(self, ctx, *args, **params):
        if isinstance(ctx, LoweringRuleContext):   # called from a builder rule
            return lower_fun_with_builders(ctx, self.fun, self.multiple_results, args, params)
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


def register_lowering(prim, rule, platform: str | None = None, inline: bool = True,
                      cacheable: bool = True):
    """Set `prim`'s lowering for `platform` ('cpu', 'cuda', 'rocm', 'tpu', 'oneapi',
    'gpu' for CUDA and ROCm; None: every platform without a rule of its own). `inline` and
    `cacheable` are accepted for JAX's signature (astjax lets XLA inline every rule's
    function and caches none of them). Returns None, as JAX's does (a notebook cell
    ending in the call displays nothing)."""
    if not isinstance(prim, core.Primitive):
        raise TypeError(f"register_lowering needs a Primitive, got {prim!r}")
    if platform is not None and platform not in _PLATFORMS:
        raise UnknownPlatformError(
            f"Registering an MLIR lowering rule for primitive {prim.name} for an unknown "
            f"platform {platform}. Known platforms are: {', '.join(_PLATFORMS)}.")
    table = prim.lowering if isinstance(prim.lowering, _PlatformRules) else None
    if table is None:
        table = _PlatformRules(prim)
        if prim.lowering is not None and not hasattr(prim.lowering, "available"):
            # the rule it had stays the default (not an impl standing in for one)
            table.rules[None] = (prim.lowering, True)
        prim.lowering = table
    for p in (("cuda", "rocm") if platform == "gpu" else (platform,)):
        table.rules[p] = (rule, False)
    prim.unsupported.pop("lowering", None)
