"""Calling an `Exported`: the `call_exported` primitive and `Exported.call`.

The primitive's block: its abstract value is the exported `out_avals` (after
checking the operands' ranks, dtypes and shapes against `in_avals`, JAX's
ValueErrors); its lowering deserializes the module's portable artifact, renames its
functions with a prefix unique in the module being built, makes them private and
calls the renamed `@main` with the kept operands (and the platform index when the
export covers several platforms) -- XLA inlines the call. An eager call compiles a
program of the one call. Reverse-mode AD goes through a `custom_vjp` whose backward
pass calls `exported.vjp()`, as JAX's; forward mode and `vmap` are refused as in JAX.
"""
from __future__ import annotations

import functools

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as _hlo

from .. import core, tree_util
from ..codegen import runtime
from ..codegen.mlir_builders import new_context
from ..custom_api import custom_vjp
from ..errors import caller_location
from ..ir import ShapedArray
from ..primitives.base import mark_unsupported, register
from ..pyast import call, load
from .exported import Exported, ExportError

__all__ = ["call_exported", "call_exported_p"]

call_exported_p = core.new_primitive("call_exported", multiple_results=True)


def _arg_name(exported, i):
    paths = tree_util.treedef_paths(exported.in_tree)
    if len(paths) != len(exported.in_avals):
        return f"argument {i}"
    path = paths[i]
    head = ("args" if path[0].idx == 0 else "kwargs") if path else ""
    return head + tree_util.keystr(path[1:]) if path else f"argument {i}"


def _call_abstract_eval(*avals, exported):
    for i, (want, got) in enumerate(zip(exported.in_avals, avals)):
        where = _arg_name(exported, i)
        if len(want.shape) != len(got.shape):
            raise ExportError(f"Rank mismatch for {where}: expected {want.shape} and "
                              f"called with {got.shape}")
        if want.dtype != got.dtype:
            raise ExportError(f"Dtype mismatch for {where}: expected {want.dtype} and "
                              f"called with {got.dtype}")
        if tuple(want.shape) != tuple(got.shape):
            raise ExportError(f"Shape mismatch for {where} (expected same constant): "
                              f"expected {want.shape} and called with {got.shape}")
    return [ShapedArray(a.shape, a.dtype, a.weak_type) for a in exported.out_avals]


@functools.lru_cache(maxsize=64)
def _renamed_functions(serialized: bytes, prefix: str) -> tuple[tuple[str, ...], str]:
    """The module's functions as text, renamed `prefix + name` and private, and the
    new name of `@main`."""
    with new_context() as ctx:
        module = _hlo.deserialize_portable_artifact(ctx, serialized)
        ops = list(module.body.operations)
        for op in ops:
            if op.operation.name != "func.func":
                raise ExportError(f"the exported module holds a `{op.operation.name}` "
                                  "beside its functions, which astjax cannot inline")
            old = ir.StringAttr(op.attributes["sym_name"]).value
            ir.SymbolTable.replace_all_symbol_uses(old, prefix + old, module.operation)
            op.attributes["sym_name"] = ir.StringAttr.get(prefix + old)
            op.attributes["sym_visibility"] = ir.StringAttr.get("private")
        return tuple(op.get_asm(enable_debug_info=False) for op in ops), prefix + "main"


def _call_lowering(ctx, *args, exported):
    mb = ctx.mb
    funcs, main = _renamed_functions(exported.mlir_module_serialized,
                                     f"astjax_exported_{len(mb.functions)}_")
    mb.functions.extend(funcs)
    operands = [args[i] for i in exported.module_kept_var_idx]
    if len(exported.platforms) > 1:
        platform = "cuda" if ctx.platform == "gpu" else ctx.platform
        index = exported.platforms.index(platform) if platform in exported.platforms else 0
        operands.insert(0, ctx.constant(np.int32(index), ShapedArray((), np.int32)))
    return ctx.op("func.call", operands, ctx.avals_out, {"callee": f"@{main}"})


def _call_source(gen, eqn):
    # the Exported is passed as the very object (it holds the serialized module)
    return call(f"{gen.inject(call_exported_p, 'call_exported_p')}.bind",
                [gen.arg(a) for a in eqn.invars],
                exported=load(gen.inject(eqn.params["exported"], "exported")))


register(call_exported_p, abstract_eval=_call_abstract_eval, lowering=_call_lowering,
         source=_call_source)
mark_unsupported(call_exported_p, "impl", "an exported module is StableHLO only XLA runs: "
                 "an eager call compiles a program of the one call")
mark_unsupported(call_exported_p, "jvp", "Exported.call is differentiated in reverse mode "
                 "through the exported VJP (a custom_vjp), as in JAX; forward mode is not "
                 "available for an exported function")
mark_unsupported(call_exported_p, "batch", "an exported function has a fixed signature "
                 "(JAX has no batching rule for call_exported either); export the vmapped "
                 "function instead")


def _check_platform(exported):
    if any(str(d) == "platform" for d in exported.disabled_safety_checks):
        return
    here = runtime.platform()
    here = "cuda" if here == "gpu" else here
    if here not in exported.platforms:
        raise ExportError(f"Function '{exported.fun_name}' was exported for platforms "
                          f"'{exported.platforms}' but it is used on '{(here,)}'.",
                          hint="export for this platform too, or disable the check with "
                               "DisabledSafetyCheck.platform()", loc=caller_location())


def _tree_mismatch(exported, in_tree):
    return ExportError(
        "The invocation args and kwargs must have the same pytree structure as when the "
        f"function '{exported.fun_name}' was exported: called with {in_tree}, exported "
        f"with {exported.in_tree}", loc=caller_location())


def call_exported(exported: Exported):
    """`exported` as a function of its original `(args, kwargs)` structure."""
    if not isinstance(exported, Exported):
        raise ExportError(f"The exported argument must be an export.Exported. Found "
                          f"{exported!r:.80}.", loc=caller_location())

    @custom_vjp
    def f_flat(*args_flat):
        return list(call_exported_p.bind(*args_flat, exported=exported))

    def f_fwd(*args_flat):
        return f_flat(*args_flat), args_flat

    def f_bwd(args_flat, cts):
        exp_vjp = exported.vjp()
        cts = [np.zeros(np.shape(c), core.float0) if want.dtype == core.float0 else c
               for c, want in zip(cts, exp_vjp.in_avals[len(args_flat):])]
        return tuple(call_exported(exp_vjp)(*args_flat, *cts))

    f_flat.defvjp(f_fwd, f_bwd)

    def f_imported(*args, **kwargs):
        leaves, in_tree = tree_util.tree_flatten((args, kwargs))
        if in_tree != exported.in_tree:
            raise _tree_mismatch(exported, in_tree)
        _check_platform(exported)
        return tree_util.tree_unflatten(exported.out_tree, f_flat(*leaves))
    return f_imported
