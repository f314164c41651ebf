"""`jax.export`'s `Exported`, `export` and `deserialize`.

`export(jitted)(*specs)` stages the function for the arguments' shapes and dtypes
(arrays or `ShapeDtypeStruct`s), lowers it with `astjax/export/lowering.py` and keeps
the module as a portable artifact with JAX's calling convention, so that it can be
stored, reloaded (`Exported.serialize`, `deserialize`: JAX's byte format,
`astjax/export/serialization.py`) and called later (`Exported.call`,
`astjax/export/calling.py`), also under `grad` through the exported VJP, which an
export made in this process builds on demand and a serialization carries up to
`vjp_order`. A function partitioned over a mesh (a sharded `jit`, a `shard_map`
inside) exports for that many devices with its layouts (`_Layout`,
astjax/export/shardings.py), as JAX's does.
"""
from __future__ import annotations

import dataclasses
import functools
import struct
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import core, sharding_impls as shd, tree_util
from ..ad_api import vjp as _vjp
from ..api import Jitted, ShapeDtypeStruct, jit
from ..codegen import runtime, stablehlo
from ..errors import caller_location
from ..ir import ShapedArray
from ..shape_poly import variables
from . import calling, serialization, shardings
from .flatbuffer import TableView
from .lowering import (DisabledSafetyCheck, ExportError, check_custom_calls,
                       check_platforms, inlinable, lower_for_export,
                       maximum_supported_calling_convention_version, module_object,
                       module_text, to_portable, used_invars)

__all__ = ["Exported", "export", "deserialize"]


@dataclasses.dataclass(frozen=True)
class Exported:
    """A function lowered to StableHLO for one signature. Fields as JAX's:
    `fun_name`, `in_tree` / `out_tree` (pytrees of `(args, kwargs)` and of the
    result), `in_avals` / `out_avals` (flat), `in_shardings_hlo` /
    `out_shardings_hlo` (None: unspecified), `nr_devices`, `platforms`,
    `ordered_effects` / `unordered_effects`, `disabled_safety_checks`,
    `mlir_module_serialized` (the portable VHLO artifact),
    `calling_convention_version`, `module_kept_var_idx` (the arguments `@main`
    takes), `uses_global_constants` (True when `@main` takes a platform index).
    A multi-device export keeps its layouts as JAX does: `_in_named_shardings` /
    `_out_named_shardings`, one NamedSharding over the mesh's AbstractMesh or None
    per flat argument / result (astjax/export/shardings.py); `in_shardings_hlo` /
    `out_shardings_hlo` are None in a fresh export and XLA's HloShardings in a
    deserialized one (older JAX artifacts carry only those:
    `_has_named_shardings` False)."""
    fun_name: str
    in_tree: Any
    in_avals: tuple
    out_tree: Any
    out_avals: tuple
    _has_named_shardings: bool
    _in_named_shardings: tuple
    _out_named_shardings: tuple
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

    def mlir_module(self, serialized: bool = True) -> Any:
        """The module as StableHLO text (the artifact deserialized and printed), or,
        with `serialized=False`, as an MLIR `Module` object (jaxlib's bindings)."""
        if serialized:
            return module_text(self.mlir_module_serialized)
        return module_object(self.mlir_module_serialized)

    def __str__(self):
        return f"Exported(fun_name={self.fun_name}, ...)"

    def in_shardings_jax(self, mesh) -> tuple:
        """The argument shardings on `mesh` (a Mesh or AbstractMesh with the
        export's axes; None each where the layout was left to XLA): what to
        `device_put` the arguments with, or give `jit` as `in_shardings`."""
        return self._on_mesh(self._in_named_shardings, self.in_shardings_hlo,
                             self.in_avals, mesh)

    def out_shardings_jax(self, mesh) -> tuple:
        """The result shardings on `mesh` (see `in_shardings_jax`)."""
        return self._on_mesh(self._out_named_shardings, self.out_shardings_hlo,
                             self.out_avals, mesh)

    def _on_mesh(self, named, hlo, avals, mesh):
        if self._has_named_shardings:
            return tuple(shardings.for_mesh(s, mesh) for s in named)
        return tuple(shardings.named_from_hlo(h, len(a.shape), mesh)
                     for h, a in zip(hlo, avals))

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
        return self._vjp_exported

    @functools.cached_property
    def _vjp_exported(self):
        return self._get_vjp(self)   # (exported once: every backward pass reuses it)

    def serialize(self, vjp_order: int = 0) -> bytes:
        """The bytes `astjax.export.deserialize` reads back; `vjp_order` VJPs are
        included (2 lets `grad(grad(...))` run on the reloaded function)."""
        return serialization.serialize(self, vjp_order=vjp_order)

    def call(self, *args, **kwargs):
        """Run the exported function on arguments of its pytree structure, shapes
        and dtypes; usable inside `jit` and under `grad` (through `vjp()`)."""
        return self._caller(*args, **kwargs)

    @functools.cached_property
    def _caller(self):
        return calling.call_exported(self)

    @functools.cached_property
    def _inlined(self):
        return inlinable(self.mlir_module_serialized)

    def inlinable(self) -> tuple[str, ...]:
        """The module's functions as text, renamed for inlining into another module
        (what the `call_exported` primitive's lowering adds)."""
        return self._inlined


def _as_jitted(fun):
    if isinstance(fun, Jitted):
        return fun
    # astjax's own array functions are what JAX wraps in `jit` (`export(jnp.sin)`)
    if callable(fun) and getattr(fun, "__module__", "").startswith("astjax."):
        return jit(fun)
    raise ExportError(f"Function to be exported must be the result of `jit` but is: "
                      f"{fun!r:.80}", hint="export astjax.jit(f)", loc=caller_location())


def export(fun_jit, *, platforms: Sequence[str] | None = None,
           disabled_checks: Sequence[DisabledSafetyCheck] = ()) -> Callable[..., Exported]:
    """Export the jitted `fun_jit`: the result, called with arrays or
    `ShapeDtypeStruct`s (as `jit(f).lower`), gives the `Exported` of that signature,
    lowered for `platforms` (default: `default_export_platform()`)."""
    fun_jit = _as_jitted(fun_jit)
    platforms = check_platforms(platforms)
    disabled = tuple(disabled_checks)

    def do_export(*args, **kwargs) -> Exported:
        jitted, args = _spec_shardings(fun_jit, args, kwargs)
        traced = jitted.trace(*args, **kwargs)
        closed = traced._entry.closed   # (the compiled program: references discharged)
        kept = used_invars(closed.jaxpr)
        symbolic = bool(variables([v.aval.shape for v in closed.jaxpr.invars]))
        if symbolic:   # (every argument: the dimension variables come from their sizes)
            kept = [i for i, v in enumerate(closed.jaxpr.invars)
                    if v.aval.dtype != core.float0]
        name = traced.fun_name
        layout = _layout(traced._entry, closed.jaxpr, kept)
        text = lower_for_export(closed, kept, platforms, f"jit_{name}",
                                stablehlo.result_names(traced.out_tree), layout)
        check_custom_calls(text, disabled, name)
        in_avals = tuple(ShapedArray(v.aval.shape, v.aval.dtype, v.aval.weak_type)
                         for v in closed.jaxpr.invars)
        out_avals = tuple(ShapedArray(v.aval.shape, v.aval.dtype, v.aval.weak_type)
                          for v in closed.jaxpr.outvars)
        ins, outs = layout.in_shardings, layout.out_shardings
        return Exported(
            fun_name=name, in_tree=traced.in_tree, in_avals=in_avals,
            out_tree=traced.out_tree, out_avals=out_avals, _has_named_shardings=True,
            _in_named_shardings=tuple(shardings.named_for_export(s, len(a.shape))
                                      for s, a in zip(ins, in_avals)),
            _out_named_shardings=tuple(shardings.named_for_export(s, len(a.shape))
                                       for s, a in zip(outs, out_avals)),
            in_shardings_hlo=(None,) * len(in_avals),
            out_shardings_hlo=(None,) * len(out_avals), nr_devices=len(layout.devices),
            platforms=platforms, ordered_effects=(), unordered_effects=(),
            disabled_safety_checks=disabled, mlir_module_serialized=to_portable(text),
            calling_convention_version=maximum_supported_calling_convention_version,
            module_kept_var_idx=tuple(kept),
            uses_global_constants=len(platforms) > 1 or symbolic,
            _get_vjp=_vjp_exporter(jitted, platforms, disabled, layout.mesh,
                                   shardings.result_types(closed.jaxpr)))
    return do_export


def _is_spec(x):
    return isinstance(x, ShapeDtypeStruct)


def _spec_shardings(fun_jit, args, kwargs):
    """Arguments given as ShapeDtypeStructs with a `sharding` are laid out by it, as
    JAX's export lays them out: (`fun_jit` with those as its in_shardings, the
    arguments without them)."""
    def sharding(x):
        return x.sharding if _is_spec(x) else None
    leaves = tree_util.tree_leaves((args, kwargs), is_leaf=_is_spec)
    if not any(sharding(x) is not None for x in leaves):
        return fun_jit, args
    if kwargs or fun_jit.static_argnums or fun_jit.static_argnames or fun_jit._shardings:
        raise ExportError("ShapeDtypeStructs with a sharding are exported as positional "
                          "arguments of a jit without static arguments and shardings",
                          hint="give the shardings to jit(in_shardings=...) instead",
                          loc=caller_location())
    layouts = tuple(tree_util.tree_map(sharding, a, is_leaf=_is_spec) for a in args)
    bare = tuple(tree_util.tree_map(
        lambda x: ShapeDtypeStruct(x.shape, x.dtype, weak_type=x.weak_type)
        if _is_spec(x) else x, a, is_leaf=_is_spec) for a in args)
    return jit(fun_jit.fun, in_shardings=layouts, donate_argnums=fun_jit.donate_argnums), bare


class _Layout:
    """How an exported program is partitioned: its `devices` (the device
    assignment it is lowered for), `mesh` (None for one device) and per flat
    argument / result the sharding asked for (None: XLA's choice). A partitioned
    `jit` (`codegen/spmd.py`'s entry) gives them; an argument the module does not
    keep has none, as in JAX."""

    def __init__(self, devices, mesh, in_shardings, out_shardings):
        self.devices, self.mesh = tuple(devices), mesh
        self.in_shardings, self.out_shardings = list(in_shardings), list(out_shardings)


def _layout(entry, jaxpr, kept) -> _Layout:
    n_in, n_out = len(jaxpr.invars), len(jaxpr.outvars)
    mesh = getattr(entry, "mesh", None)
    if mesh is None:    # one device: the default one
        return _Layout((runtime.default_device(),), None, [None] * n_in, [None] * n_out)
    given = entry.param_shardings[len(entry.param_shardings) - n_in:]
    ins = [s if i in kept else None for i, s in enumerate(given)]
    return _Layout(entry.devices, mesh, ins, entry.asked_result_shardings)


def _vjp_exporter(fun_jit, platforms, disabled, mesh, typed):
    """`Exported._get_vjp` of an export made in this process: the VJP of the
    flattened function, exported on demand for the primal's signature (on `mesh`,
    when the primal is partitioned, with its layouts: primal arguments and
    cotangents as the primal's arguments and results -- a result left unspecified by
    its layout in `typed`, JAX's type of it --, the argument cotangents as the
    primal's arguments)."""
    def get_vjp(exp: Exported) -> Exported:
        n = len(exp.in_avals)

        def flat_fun(*leaves):
            args, kwargs = tree_util.tree_unflatten(exp.in_tree, leaves)
            return tree_util.tree_leaves(fun_jit(*args, **kwargs))

        def fun_vjp(*args_and_cts):
            _, pullback = _vjp(flat_fun, *args_and_cts[:n])
            return pullback(list(args_and_cts[n:]))
        fun_vjp.__name__ = f"{exp.fun_name}_vjp"
        specs = [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
                 for a in exp.in_avals]
        specs += [ShapeDtypeStruct(a.shape, _ct_dtype(a.dtype)) for a in exp.out_avals]
        if mesh is None:
            return export(jit(fun_vjp), platforms=platforms, disabled_checks=disabled)(*specs)
        ins = exp.in_shardings_jax(mesh)
        cts = tuple(s if s is not None else t
                    for s, t in zip(exp.out_shardings_jax(mesh), typed))
        jitted = jit(fun_vjp, in_shardings=ins + cts, out_shardings=ins)
        with shd.set_mesh(mesh):   # (the primal's PartitionSpecs name the export's mesh)
            return export(jitted, platforms=platforms, disabled_checks=disabled)(*specs)
    return get_vjp


def _ct_dtype(dtype):
    """The cotangent dtype of a result: itself when inexact, else float0."""
    dtype = np.dtype(dtype)
    return dtype if np.issubdtype(dtype, np.inexact) else core.float0


def deserialize(blob) -> Exported:
    """The `Exported` that `Exported.serialize` -- astjax's or JAX's -- wrote."""
    try:
        root = TableView.root(bytes(blob))
        return _from_table(root)
    except (struct.error, IndexError, UnicodeDecodeError) as e:
        raise ExportError(f"the bytes are not a serialized Exported ({e})",
                          loc=caller_location()) from None


def _from_table(t) -> Exported:
    fields, vjp_table = serialization.read(t)
    get_vjp = None
    if vjp_table is not None:
        get_vjp = lambda _exp: _from_table(vjp_table)  # noqa: E731
    return Exported(**fields, _get_vjp=get_vjp)
