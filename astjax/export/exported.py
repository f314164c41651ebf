"""`jax.export`'s `Exported` and `export`: a jitted function lowered once to
StableHLO for a given signature, kept as a portable (VHLO) artifact with the
calling convention that lets it be stored, reloaded and called later.

`export(jitted)(*specs)` stages the function for the arguments' shapes and dtypes
(arrays or `ShapeDtypeStruct`s), lowers it to one StableHLO module whose public
`@main` takes the kept arguments (those the program reads, `module_kept_var_idx`)
and returns the flat results, checks that every custom call it makes has a stable
target (`DisabledSafetyCheck.custom_call(name)` allows others), and serializes the
module with StableHLO's portable-artifact format at the version JAX targets (four
weeks of forward compatibility). Host callbacks are refused: their targets are
Python functions of this process.

`platforms=` with several platforms gives JAX's multi-platform calling convention:
`@main` takes a leading `i32` platform index and a `stablehlo.case` selects the
program lowered for that platform.

Calling an `Exported` (`Exported.call`, `astjax.export.calling`) and its byte format
(`serialize` / `deserialize`, `astjax.export.serialization`) live beside this module.
"""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from jaxlib.mlir.dialects import stablehlo as _hlo

from .. import core, tree_util
from ..api import Jitted, ShapeDtypeStruct, jit
from ..codegen import runtime, stablehlo
from ..codegen.mlir_builders import new_context
from ..errors import AstjaxError, caller_location
from ..ir import ShapedArray

__all__ = ["DisabledSafetyCheck", "Exported", "export", "default_export_platform",
           "minimum_supported_calling_convention_version",
           "maximum_supported_calling_convention_version", "ExportError"]

# The calling conventions JAX 0.10.2 reads and writes; astjax writes the newest.
minimum_supported_calling_convention_version = 9
maximum_supported_calling_convention_version = 10

_PLATFORMS = ("cpu", "cuda", "rocm", "tpu")


class ExportError(AstjaxError, ValueError):
    """A function that cannot be exported or an Exported used against its contract
    (JAX raises ValueError in the same places)."""


class DisabledSafetyCheck:
    """A safety check to skip: `DisabledSafetyCheck.platform()` (call on another
    platform than the export's) or `DisabledSafetyCheck.custom_call(target)` (export
    a custom call whose target has no stability guarantee)."""

    def __init__(self, _impl: str):
        self._impl = _impl

    @classmethod
    def platform(cls) -> DisabledSafetyCheck:
        """Allow calling on a platform the function was not exported for."""
        return cls("platform")

    @classmethod
    def custom_call(cls, target_name: str) -> DisabledSafetyCheck:
        """Allow exporting a custom call to `target_name`."""
        return cls(f"custom_call:{target_name}")

    def is_custom_call(self) -> str | None:
        """The custom-call target this check allows, or None."""
        return self._impl[len("custom_call:"):] if self._impl.startswith("custom_call:") \
            else None

    def __str__(self):
        return self._impl
    __repr__ = __str__

    def __eq__(self, other):
        return isinstance(other, DisabledSafetyCheck) and self._impl == other._impl

    def __hash__(self):
        return hash(self._impl)


@dataclasses.dataclass(frozen=True)
class Exported:
    """A function lowered to StableHLO for one signature. Fields as JAX's:
    `fun_name`, `in_tree` / `out_tree` (pytrees of `(args, kwargs)` and of the
    result), `in_avals` / `out_avals` (flat), `in_shardings_hlo` /
    `out_shardings_hlo` (None: unspecified), `nr_devices`, `platforms`,
    `ordered_effects` / `unordered_effects`, `disabled_safety_checks`,
    `mlir_module_serialized` (the portable VHLO artifact),
    `calling_convention_version`, `module_kept_var_idx` (the arguments `@main`
    takes), `uses_global_constants` (True when `@main` takes a platform index)."""
    fun_name: str
    in_tree: Any
    in_avals: tuple
    out_tree: Any
    out_avals: tuple
    in_shardings_hlo: tuple
    out_shardings_hlo: tuple
    nr_devices: int
    platforms: tuple
    ordered_effects: tuple
    unordered_effects: tuple
    disabled_safety_checks: tuple
    mlir_module_serialized: bytes
    calling_convention_version: int
    module_kept_var_idx: tuple
    uses_global_constants: bool
    _get_vjp: Callable | None = dataclasses.field(default=None, compare=False)

    def mlir_module(self) -> str:
        """The module as StableHLO text (the artifact deserialized and printed)."""
        with new_context() as ctx:
            module = _hlo.deserialize_portable_artifact(ctx, self.mlir_module_serialized)
            return module.operation.get_asm(enable_debug_info=False)

    def __str__(self):
        return f"Exported(fun_name={self.fun_name}, ...)"

    def in_shardings_jax(self, mesh) -> tuple:
        """The argument shardings for running on `mesh`: None each (astjax exports
        single-device programs, whose arguments have no sharding)."""
        del mesh
        return tuple(None for _ in self.in_avals)

    def out_shardings_jax(self, mesh) -> tuple:
        """The result shardings for `mesh`: None each (see `in_shardings_jax`)."""
        del mesh
        return tuple(None for _ in self.out_avals)

    def has_vjp(self) -> bool:
        """Whether the VJP of this function is available (`vjp()`)."""
        return self._get_vjp is not None

    def vjp(self) -> Exported:
        """The exported VJP: flat primal arguments then one cotangent per flat
        result, returning the cotangents of the flat arguments."""
        if self._get_vjp is None:
            raise ExportError("No VJP is available", hint="export the function in this "
                              "process, or serialize it with vjp_order >= 1",
                              loc=caller_location())
        return self._get_vjp(self)

    def serialize(self, vjp_order: int = 0) -> bytes:
        """The bytes `astjax.export.deserialize` reads back; `vjp_order` VJPs are
        included (2 lets `grad(grad(...))` run on the reloaded function)."""
        from .serialization import serialize
        return serialize(self, vjp_order=vjp_order)

    def call(self, *args, **kwargs):
        """Run the exported function on arguments of its pytree structure, shapes
        and dtypes; usable inside `jit` and under `grad` (through `vjp()`)."""
        from .calling import call_exported
        return call_exported(self)(*args, **kwargs)


def default_export_platform() -> str:
    """The platform `export` lowers for by default: the default backend's
    (`'cpu'`, `'cuda'`, `'rocm'` or `'tpu'`)."""
    name = runtime.platform()
    return "cuda" if name == "gpu" else name


# Custom-call targets whose behaviour XLA keeps stable across releases (the LAPACK
# and GPU solver FFI kernels, the partitioner's markers); anything else is refused
# unless a DisabledSafetyCheck allows it.
_STABLE_TARGET = re.compile(
    r"(lapack_\w+_ffi|cu\w+_ffi|hip\w+_ffi|cusolver_\w+|hipsolver_\w+|cublas\w*|hipblas\w*"
    r"|Sharding|SPMDFullToShardShape|SPMDShardToFullShape|annotate_device_placement"
    r"|Eigh|Qr|ProductOfElementaryHouseholderReflectors|LuDecomposition|ApproxTopK"
    r"|AllocateBuffer|shape_assertion|stablehlo\.dynamic_\w+)$")
_TARGET = re.compile(r'call_target_name = "([^"]*)"')


def _check_custom_calls(text, disabled_checks, fun_name):
    allowed = {dc.is_custom_call() for dc in disabled_checks} - {None}
    bad = sorted({t for t in _TARGET.findall(text)
                  if not _STABLE_TARGET.match(t) and t not in allowed and "ALL" not in allowed})
    if bad:
        raise ExportError(
            f"cannot export '{fun_name}': it makes custom calls whose targets have no "
            f"compatibility guarantee: {', '.join(bad)} (a host callback's target is a "
            "Python function of this process)",
            hint="remove the callback, or pass disabled_checks=[export.DisabledSafetyCheck."
                 f"custom_call({bad[0]!r})] if you know the target stays compatible",
            loc=caller_location())


def _used_invars(jaxpr) -> list[int]:
    """The indices of `jaxpr`'s invars an equation or the outputs read."""
    used = {id(v) for e in jaxpr.eqns for v in e.invars}
    used |= {id(v) for v in jaxpr.outvars}
    return [i for i, v in enumerate(jaxpr.invars) if id(v) in used]


def _lower_body(mb, closed, kept, platform):
    """Lower `closed` into `mb` with the kept invars as `%arg0, %arg1, ...`;
    returns the result SSA names."""
    jaxpr = closed.jaxpr
    consts = [mb.constant(np.asarray(c), core.get_aval(c)) for c in closed.consts]
    names = {i: f"%arg{k}" for k, i in enumerate(kept)}
    for i, n in names.items():
        mb.types[n] = stablehlo.tensor_type(jaxpr.invars[i].aval)
    args = [names.get(i, "%unused") for i in range(len(jaxpr.invars))]
    with core.collector_paused():
        return stablehlo.lower_jaxpr(mb, jaxpr, consts, args, platform)


def _func_text(mb, name, visibility, arg_sig, outs, res_attrs):
    out_types = [mb.types[o] for o in outs]
    mb.emit(f"func.return {', '.join(outs)} : {', '.join(out_types)}" if outs
            else "func.return")
    res = [f"{t} {{{a}}}" if a else t for t, a in zip(out_types, res_attrs)]
    return (f"func.func {visibility} @{name}({', '.join(arg_sig)}) -> ({', '.join(res)}) {{\n"
            + "\n".join(mb.lines) + "\n}")


def lower_for_export(closed, kept, platforms, module_name, result_names) -> str:
    """The exported module's text: `@main(kept args) -> results`, or, for several
    platforms, `@main(%platform_index: tensor<i32>, kept args)` selecting by
    `stablehlo.case` among private per-platform functions."""
    in_avals = [closed.jaxpr.invars[i].aval for i in kept]
    funcs, callbacks = [], []
    arg_sig = [f"%arg{k}: {stablehlo.tensor_type(a)}" for k, a in enumerate(in_avals)]
    res_attrs = [f'jax.result_info = "{stablehlo.mlir_string(n)}"' for n in result_names]
    for p in platforms:
        mb = stablehlo.ModuleBuilder()
        outs = _lower_body(mb, closed, kept, p)
        name = "main" if len(platforms) == 1 else f"_platform_{p}"
        vis = "public" if len(platforms) == 1 else "private"
        funcs.append(_func_text(mb, name, vis, arg_sig,
                                outs, res_attrs if len(platforms) == 1 else [""] * len(outs)))
        funcs.extend(mb.functions)
        callbacks.extend(mb.host_callbacks)
    if len(platforms) > 1:
        funcs.insert(0, _dispatch_main(platforms, in_avals, closed, res_attrs))
    if callbacks:
        raise ExportError(
            "cannot export a function that makes host callbacks (debug.print, "
            "pure_callback, io_callback): their targets are Python functions of this "
            "process, which a serialized module cannot carry (JAX refuses them too)",
            hint="move the callback outside the exported function", loc=caller_location())
    body = "".join("\n".join("  " + ln for ln in f.splitlines()) + "\n" for f in funcs)
    safe = "".join(c if c.isalnum() or c == "_" else "_" for c in module_name)
    return (f"module @{safe} attributes {{jax.uses_shape_polymorphism = false, "
            f"mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32}} {{\n{body}}}\n")


def _dispatch_main(platforms, in_avals, closed, res_attrs):
    """`@main` of a multi-platform module: a `case` on the platform index (its first
    argument, JAX's `_platform_index`), each branch calling its platform's function."""
    out_avals = [v.aval for v in closed.jaxpr.outvars]
    mb = stablehlo.ModuleBuilder()
    args = [f"%arg{k + 1}" for k in range(len(in_avals))]
    for n, a in zip(["%arg0"] + args, [ShapedArray((), np.int32)] + list(in_avals)):
        mb.types[n] = stablehlo.tensor_type(a)

    def branch(p):
        return mb.region([], lambda: mb.op("func.call", args, out_avals,
                                           {"callee": f"@_platform_{p}"}))
    outs = mb.op("stablehlo.case", ["%arg0"], out_avals,
                 regions=[branch(p) for p in platforms])
    sig = ['%arg0: tensor<i32> {jax.global_constant = "_platform_index"}'] + [
        f"{n}: {mb.types[n]}" for n in args]
    return _func_text(mb, "main", "public", sig, outs, res_attrs)


def to_portable(text: str) -> bytes:
    """StableHLO text -> the portable VHLO artifact, at the StableHLO version JAX
    targets (one four weeks old, so that consumers a month behind can load it)."""
    version = _hlo.get_version_from_compatibility_requirement(
        _hlo.StablehloCompatibilityRequirement.WEEK_4)
    return bytes(_hlo.serialize_portable_artifact_str(text, version))


def _as_jitted(fun):
    if isinstance(fun, Jitted):
        return fun
    # astjax's own array functions are what JAX wraps in `jit` (`export(jnp.sin)`)
    if callable(fun) and getattr(fun, "__module__", "").startswith("astjax."):
        return jit(fun)
    raise ExportError(f"Function to be exported must be the result of `jit` but is: "
                      f"{fun!r:.80}", hint="export astjax.jit(f)", loc=caller_location())


def _check_platforms(platforms):
    if platforms is None:
        return (default_export_platform(),)
    platforms = tuple("cuda" if p == "gpu" else p for p in platforms)
    for p in platforms:
        if p not in _PLATFORMS:
            raise ExportError(f"Unsupported platform {p!r} for export",
                              hint=f"pick among {', '.join(_PLATFORMS)}",
                              loc=caller_location())
    if len(set(platforms)) != len(platforms):
        raise ExportError(f"platforms {platforms} list a platform twice",
                          loc=caller_location())
    return platforms


def export(fun_jit, *, platforms: Sequence[str] | None = None,
           disabled_checks: Sequence[DisabledSafetyCheck] = ()) -> Callable[..., Exported]:
    """Export the jitted `fun_jit`: the result, called with arrays or
    `ShapeDtypeStruct`s (as `jit(f).lower`), gives the `Exported` of that signature,
    lowered for `platforms` (default: `default_export_platform()`)."""
    fun_jit = _as_jitted(fun_jit)
    platforms = _check_platforms(platforms)
    disabled = tuple(disabled_checks)

    def do_export(*args, **kwargs) -> Exported:
        traced = fun_jit.trace(*args, **kwargs)
        closed = traced.jaxpr
        kept = _used_invars(closed.jaxpr)
        name = traced.fun_name
        text = lower_for_export(closed, kept, platforms, f"jit_{name}",
                                stablehlo.result_names(traced.out_tree))
        _check_custom_calls(text, disabled, name)
        in_avals = tuple(ShapedArray(v.aval.shape, v.aval.dtype, v.aval.weak_type)
                         for v in closed.jaxpr.invars)
        out_avals = tuple(ShapedArray(v.aval.shape, v.aval.dtype, v.aval.weak_type)
                          for v in closed.jaxpr.outvars)
        return Exported(
            fun_name=name, in_tree=traced.in_tree, in_avals=in_avals,
            out_tree=traced.out_tree, out_avals=out_avals,
            in_shardings_hlo=(None,) * len(in_avals),
            out_shardings_hlo=(None,) * len(out_avals), nr_devices=1,
            platforms=platforms, ordered_effects=(), unordered_effects=(),
            disabled_safety_checks=disabled, mlir_module_serialized=to_portable(text),
            calling_convention_version=maximum_supported_calling_convention_version,
            module_kept_var_idx=tuple(kept), uses_global_constants=len(platforms) > 1,
            _get_vjp=_vjp_exporter(fun_jit, platforms, disabled))
    return do_export


def _vjp_exporter(fun_jit, platforms, disabled):
    """`Exported._get_vjp` of an export made in this process: the VJP of the
    flattened function, exported on demand for the primal's signature."""
    def get_vjp(exp: Exported) -> Exported:
        from ..ad_api import vjp
        n = len(exp.in_avals)

        def flat_fun(*leaves):
            args, kwargs = tree_util.tree_unflatten(exp.in_tree, leaves)
            return tree_util.tree_leaves(fun_jit(*args, **kwargs))

        def fun_vjp(*args_and_cts):
            _, pullback = vjp(flat_fun, *args_and_cts[:n])
            return pullback(list(args_and_cts[n:]))
        fun_vjp.__name__ = f"{exp.fun_name}_vjp"
        specs = [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
                 for a in exp.in_avals]
        specs += [ShapeDtypeStruct(a.shape, _ct_dtype(a.dtype)) for a in exp.out_avals]
        return export(jit(fun_vjp), platforms=platforms, disabled_checks=disabled)(*specs)
    return get_vjp


def _ct_dtype(dtype):
    """The cotangent dtype of a result: itself when inexact, else float0."""
    dtype = np.dtype(dtype)
    return dtype if np.issubdtype(dtype, np.inexact) else core.float0
