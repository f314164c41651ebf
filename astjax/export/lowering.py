"""Lowering a staged function for `jax.export`: the module's calling convention,
the safety checks, and the portable artifact.

`lower_for_export` makes one StableHLO module whose public `@main` takes the kept
arguments (those the program reads: `module_kept_var_idx`) and returns the flat
results with JAX's `jax.result_info` names; with several platforms, `@main` takes a
leading `i32` platform index (`jax.global_constant = "_platform_index"`) and a
`stablehlo.case` calls the private function lowered for that platform (JAX's
multi-platform convention). Every custom call must have a target whose behaviour
XLA keeps stable (`DisabledSafetyCheck.custom_call(name)` allows others); host
callbacks are refused, their targets being Python functions of this process.
`to_portable` serializes the module as StableHLO's portable (VHLO) artifact at the
version JAX targets; `module_text` and `inlinable` read one back, the latter with
every symbol renamed for inlining into another module (the `call_exported`
primitive's lowering).
"""
from __future__ import annotations

import re

import numpy as np

from .. import core
from .. import sharding as shd
from ..codegen import runtime, stablehlo
from ..codegen.spmd import sharding_attr, shardy
from ..dispatch_keys import without_float0_inputs, without_float0_outputs
from ..codegen.mlir_builders import ir, new_context, stablehlo as _hlo
from jaxlib import _jax
from jaxlib.mlir.dialects import sdy as _sdy   # (JAX's modules carry Shardy attributes)
from ..errors import AstjaxError, caller_location
from ..ir import ShapedArray
from ..primitives.exported_call import INLINE_PREFIX
from ..shape_poly import variables
from . import polymorphic

__all__ = ["DisabledSafetyCheck", "ExportError", "default_export_platform",
           "minimum_supported_calling_convention_version",
           "maximum_supported_calling_convention_version", "lower_for_export",
           "check_custom_calls", "check_platforms", "used_invars", "to_portable",
           "module_text", "module_object", "inlinable"]

# The calling conventions JAX 0.10.2 reads and writes; astjax writes the newest.
minimum_supported_calling_convention_version = 9
maximum_supported_calling_convention_version = 10


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


def default_export_platform() -> str:
    """The platform `export` lowers for by default: the default backend's
    (`'cpu'`, `'cuda'`, `'rocm'` or `'tpu'`)."""
    name = runtime.platform()
    return "cuda" if name == "gpu" else name


# Custom-call targets whose behaviour XLA keeps stable across releases (the LAPACK
# FFI kernels, JAX 0.10.2's list of GPU solver kernels, the partitioner's markers);
# anything else is refused unless a DisabledSafetyCheck allows it.
_STABLE_TARGET = re.compile(
    r"(lapack_\w+_ffi|(cu|hip)_(lu_pivots_to_permutation|threefry2x32_ffi)"
    r"|(cu|hip)solver_(getrf|geqrf|orgqr|potrf|syevd|gesvd|gesvdj|sytrd)_ffi"
    r"|hipsolver_gesdd_ffi|cusparse_gtsv2_ffi"
    r"|Sharding|SPMDFullToShardShape|SPMDShardToFullShape|annotate_device_placement"
    r"|Eigh|Qr|ProductOfElementaryHouseholderReflectors|LuDecomposition|ApproxTopK"
    r"|AllocateBuffer|shape_assertion|stablehlo\.dynamic_\w+)$")
_TARGET = re.compile(r'call_target_name = "([^"]*)"')


def check_custom_calls(text, disabled_checks, fun_name):
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


def used_invars(jaxpr) -> list[int]:
    """The indices of `jaxpr`'s invars an equation or the outputs read."""
    used = {id(v) for e in jaxpr.eqns for v in e.invars}
    used |= {id(v) for v in jaxpr.outvars}
    return [i for i, v in enumerate(jaxpr.invars) if id(v) in used]


def ir_aval(aval):
    """The aval a module gives `aval`: float0 (no data) is `i1`, as in JAX."""
    return ShapedArray(aval.shape, np.bool_) if aval.dtype == core.float0 else aval


def _lower_body(mb, closed, kept, platform, dims=()):
    """Lower `closed` into `mb` with the dimension variables `dims` as `%arg0, ...`
    (`tensor<i32>`, JAX's `jax.global_constant` arguments) and then the kept invars;
    returns the result SSA names. A float0 argument carries no data and a float0
    result is `i1` zeros (`dispatch_keys`' float0 rules, JAX's module types)."""
    program, removed = without_float0_outputs(closed)
    program, _ = without_float0_inputs(program)
    jaxpr = closed.jaxpr
    for j, v in enumerate(dims):
        mb.dim_values[v] = f"%arg{j}"
        mb.types[f"%arg{j}"] = "tensor<i32>"
    consts = [mb.constant(np.asarray(c), core.get_aval(c)) for c in program.consts]
    names = {i: f"%arg{len(dims) + k}" for k, i in enumerate(kept)}
    for i, n in names.items():
        mb.types[n] = stablehlo.tensor_type(ir_aval(jaxpr.invars[i].aval))
    args = [names.get(i, "%unused") for i, v in enumerate(jaxpr.invars)
            if v.aval.dtype != core.float0]
    with core.collector_paused():
        outs = stablehlo.lower_jaxpr(mb, program.jaxpr, consts, args, platform)
    for i, aval in removed:
        outs.insert(i, mb.constant(np.zeros(aval.shape, np.bool_), ir_aval(aval)))
    return outs


def _func_text(mb, name, visibility, arg_sig, outs, res_attrs):
    out_types = [mb.types[o] for o in outs]
    mb.emit(f"func.return {', '.join(outs)} : {', '.join(out_types)}" if outs
            else "func.return")
    res = [f"{t} {{{a}}}" if a else t for t, a in zip(out_types, res_attrs)]
    return (f"func.func {visibility} @{name}({', '.join(arg_sig)}) -> ({', '.join(res)}) {{\n"
            + "\n".join(mb.lines) + "\n}")


def _with_attr(text, attr):
    return f"{text} {{{attr}}}" if attr else text


def lower_for_export(closed, kept, platforms, module_name, result_names, layout) -> str:
    """The exported module's text: `@main(kept args) -> results`, or, for several
    platforms, `@main(%platform_index: tensor<i32>, kept args)` selecting by
    `stablehlo.case` among private per-platform functions. With symbolic shapes,
    `@main` computes the dimension variables from its arguments' sizes
    (astjax/export/polymorphic.py) and passes them to the function(s) holding the
    program, as JAX's modules do. `layout` (`exported._Layout`): the device
    assignment, and the argument and result shardings, written on `@main` as a
    partitioned `jit` writes them (Shardy's or GSPMD's attributes, with
    `mhlo.num_partitions` the number of devices)."""
    in_avals = [ir_aval(closed.jaxpr.invars[i].aval) for i in kept]
    out_avals = [ir_aval(v.aval) for v in closed.jaxpr.outvars]
    dims = variables([a.shape for a in in_avals])
    funcs, callbacks = [], []
    devices, sdy = layout.devices, shardy()
    with shd.lowering_assignment(devices):
        arg_attrs = [sharding_attr(layout.in_shardings[i], a.ndim, devices, sdy)
                     for i, a in zip(kept, in_avals)]
        out_attrs = [sharding_attr(s, a.ndim, devices, sdy)
                     for s, a in zip(layout.out_shardings, out_avals)]
        sig = [f'%arg{j}: tensor<i32> {{jax.global_constant = "{v}"}}'
               for j, v in enumerate(dims)]
        sig += [_with_attr(f"%arg{len(dims) + k}: {stablehlo.tensor_type(a)}", attr)
                for k, (a, attr) in enumerate(zip(in_avals, arg_attrs))]
        res_attrs = [", ".join(x for x in (f'jax.result_info = "{stablehlo.mlir_string(n)}"',
                                           attr) if x)
                     for n, attr in zip(result_names, out_attrs)]
        wrapped = bool(dims) or len(platforms) > 1
        # inner `jit` functions: one symbol table for every platform's functions
        symbols = stablehlo.Symbols(["main", "_wrapped_jax_export_main",
                                     *(f"_platform_{p}" for p in platforms)])
        for p in platforms:
            mb = stablehlo.ModuleBuilder()
            mb.symbols = symbols
            outs = _lower_body(mb, closed, kept, p, dims)
            name = ("main" if not wrapped else f"_platform_{p}" if len(platforms) > 1
                    else "_wrapped_jax_export_main")
            # (JAX's `_wrapped_jax_export_main` is its `main` renamed: it keeps the
            # results' attributes; astjax's per-platform functions have none)
            funcs.append(_func_text(mb, name, "private" if wrapped else "public", sig, outs,
                                    [""] * len(outs) if len(platforms) > 1 else res_attrs))
            funcs.extend(mb.functions)
            callbacks.extend(mb.host_callbacks)
        preamble = shd.sdy_mesh_decls()   # (the meshes the shardings named)
    if wrapped:
        funcs.insert(0, _entry_main(platforms, in_avals, dims, closed, res_attrs, arg_attrs))
    if callbacks:
        raise ExportError(
            "cannot export a function that makes host callbacks (debug.print, "
            "pure_callback, io_callback): their targets are Python functions of this "
            "process, which a serialized module cannot carry (JAX refuses them too)",
            hint="move the callback outside the exported function", loc=caller_location())
    body = "".join("\n".join("  " + ln for ln in f.splitlines()) + "\n"
                   for f in [*preamble, *funcs])
    safe = stablehlo.module_symbol(module_name)
    # (JAX's flag counts the platform index among the dimension variables)
    poly = "true" if dims or len(platforms) > 1 else "false"
    return (f"module @{safe} attributes {{jax.uses_shape_polymorphism = {poly}, "
            f"mhlo.num_partitions = {len(devices)} : i32, mhlo.num_replicas = 1 : i32}} "
            f"{{\n{body}}}\n")


def _entry_main(platforms, in_avals, dims, closed, res_attrs, arg_attrs):
    """The public `@main` of a module holding its program in private functions: its
    arguments are the platform index (several platforms: JAX's `_platform_index`)
    and the kept arguments; it computes the dimension variables from the arguments'
    sizes (checking JAX's shape assertions) and calls the program -- through a
    `case` on the platform index when there are several."""
    out_avals = [ir_aval(v.aval) for v in closed.jaxpr.outvars]
    mb = stablehlo.ModuleBuilder()
    multi = len(platforms) > 1
    args = [f"%arg{k + multi}" for k in range(len(in_avals))]
    for n, a in zip(args, in_avals):
        mb.types[n] = stablehlo.tensor_type(a)
    dim_vals = polymorphic.dimension_values(mb, in_avals, args) if dims else []
    operands = [*dim_vals, *args]
    if multi:
        mb.types["%arg0"] = "tensor<i32>"

        def branch(p):
            return mb.region([], lambda: mb.op("func.call", operands, out_avals,
                                               {"callee": f"@_platform_{p}"}))
        outs = mb.op("stablehlo.case", ["%arg0"], out_avals,
                     regions=[branch(p) for p in platforms])
    else:
        outs = mb.op("func.call", operands, out_avals,
                     {"callee": "@_wrapped_jax_export_main"})
    sig = (['%arg0: tensor<i32> {jax.global_constant = "_platform_index"}'] if multi else [])
    sig += [_with_attr(f"{n}: {mb.types[n]}", attr) for n, attr in zip(args, arg_attrs)]
    return _func_text(mb, "main", "public", sig, outs, res_attrs)


def to_portable(text: str) -> bytes:
    """StableHLO text -> the portable VHLO artifact, at the StableHLO version JAX
    targets (one four weeks old, so that consumers a month behind can load it)."""
    version = _hlo.get_version_from_compatibility_requirement(
        _hlo.StablehloCompatibilityRequirement.WEEK_4)
    # jaxlib's serializer, as JAX's export: it drops dead operations (an unused custom
    # call's results) as JAX's artifacts do; Shardy's ops and attributes (sharding
    # constraints, kernels' sharding rules) stay in their own dialect
    return bytes(_jax.mlir.serialize_portable_artifact(text, version, True))


def check_platforms(platforms):
    if platforms is None:
        return (default_export_platform(),)
    # (a name other than cpu/cuda/rocm/tpu is kept as given, as JAX: its function
    # lowers with the platform-independent rules, and calling it is JAX's error)
    platforms = tuple("cuda" if p == "gpu" else p for p in platforms)
    if len(set(platforms)) != len(platforms):
        raise ExportError(f"platforms {platforms} list a platform twice",
                          loc=caller_location())
    return platforms




def _context():
    """An MLIR context for reading exported modules: astjax's dialects and Shardy's
    (JAX's modules carry `sdy` attributes, e.g. custom calls' sharding rules)."""
    ctx = new_context()
    _sdy.register_dialect(ctx)
    return ctx


def module_object(serialized: bytes):
    """The portable artifact `serialized` as an MLIR `Module` (which keeps its
    context alive)."""
    return _hlo.deserialize_portable_artifact(_context(), serialized)


def module_text(serialized: bytes) -> str:
    """The portable artifact `serialized` as StableHLO text."""
    with _context() as ctx:
        module = _hlo.deserialize_portable_artifact(ctx, serialized)
        return module.operation.get_asm(enable_debug_info=False)


def inlinable(serialized: bytes) -> tuple[str, ...]:
    """The functions of the artifact `serialized` as text, private, every symbol
    renamed `INLINE_PREFIX + name` (the `call_exported` lowering gives the prefix
    its module-unique value)."""
    with _context() as ctx:
        module = _hlo.deserialize_portable_artifact(ctx, serialized)
        ops = list(module.body.operations)
        for op in ops:
            kind = op.operation.name
            if kind not in ("func.func", "sdy.mesh"):
                raise ExportError(f"the exported module holds a `{kind}` beside its "
                                  "functions, which astjax cannot inline")
            old = ir.StringAttr(op.attributes["sym_name"]).value
            ir.SymbolTable.replace_all_symbol_uses(old, INLINE_PREFIX + old,
                                                   module.operation)
            op.attributes["sym_name"] = ir.StringAttr.get(INLINE_PREFIX + old)
            if kind == "func.func":   # (a Shardy mesh is a module-level declaration)
                op.attributes["sym_visibility"] = ir.StringAttr.get("private")
        return tuple(op.get_asm(enable_debug_info=False) for op in ops)
