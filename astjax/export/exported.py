"""`jax.export`'s `Exported`, `export` and `deserialize`.

`export(jitted)(*specs)` stages the function for the arguments' shapes and dtypes
(arrays or `ShapeDtypeStruct`s), lowers it with `astjax/export/lowering.py` and keeps
the module as a portable artifact with JAX's calling convention, so that it can be
stored, reloaded (`Exported.serialize`, `deserialize`: JAX's byte format,
`astjax/export/serialization.py`) and called later (`Exported.call`,
`astjax/export/calling.py`), also under `grad` through the exported VJP, which an
export made in this process builds on demand and a serialization carries up to
`vjp_order`.
"""
from __future__ import annotations

import dataclasses
import functools
import struct
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import core, tree_util
from ..ad_api import vjp as _vjp
from ..api import Jitted, ShapeDtypeStruct, jit
from ..codegen import stablehlo
from ..errors import caller_location
from ..ir import ShapedArray
from ..shape_poly import variables
from . import calling, serialization
from .flatbuffer import TableView
from .lowering import (DisabledSafetyCheck, ExportError, check_custom_calls,
                       check_platforms, check_single_device, inlinable, lower_for_export,
                       maximum_supported_calling_convention_version, module_object,
                       module_text,
                       to_portable, used_invars)

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

    def mlir_module(self, serialized: bool = True) -> Any:
        """The module as StableHLO text (the artifact deserialized and printed), or,
        with `serialized=False`, as an MLIR `Module` object (jaxlib's bindings)."""
        if serialized:
            return module_text(self.mlir_module_serialized)
        return module_object(self.mlir_module_serialized)

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
        check_single_device(fun_jit._shardings)
        traced = fun_jit.trace(*args, **kwargs)
        closed = traced.jaxpr
        kept = used_invars(closed.jaxpr)
        symbolic = bool(variables([v.aval.shape for v in closed.jaxpr.invars]))
        if symbolic:   # (every argument: the dimension variables come from their sizes)
            kept = [i for i, v in enumerate(closed.jaxpr.invars)
                    if v.aval.dtype != core.float0]
        name = traced.fun_name
        text = lower_for_export(closed, kept, platforms, f"jit_{name}",
                                stablehlo.result_names(traced.out_tree))
        check_custom_calls(text, disabled, name)
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
            module_kept_var_idx=tuple(kept),
            uses_global_constants=len(platforms) > 1 or symbolic,
            _get_vjp=_vjp_exporter(fun_jit, platforms, disabled))
    return do_export


def _vjp_exporter(fun_jit, platforms, disabled):
    """`Exported._get_vjp` of an export made in this process: the VJP of the
    flattened function, exported on demand for the primal's signature."""
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
        return export(jit(fun_vjp), platforms=platforms, disabled_checks=disabled)(*specs)
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
