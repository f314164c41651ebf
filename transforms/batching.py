"""`vmap` as an IR -> IR pass: batch a jaxpr equation by equation.

`batch_jaxpr(closed, in_dims, axis_size, axis_name, args)` interprets a per-example
jaxpr inside the *current* builder. Every value is a pair (value, batch dim): the
batch dim is an int (where the mapped axis of size `axis_size` sits in that value)
or `not_mapped` (None: the value is the same for every lane and carries no batch
axis). An equation whose inputs are all unmapped is re-staged as it is; otherwise
its primitive's batch rule runs:

    rule(args, dims, **params) -> (out, out_dim)     (lists for multiple results)

Rules are written with `lax` functions / `core.bind` on Tracers, so they stage IR
into the current builder; each equation is staged under its own `source_info` with
`phase='batched'`, so errors and generated source still point at the user's line.
Every primitive's batch rule lives in its own block (`astjax/primitives/`); the
structured control flow (cond, while, scan) and the call-like primitives receive this
pass as `tx`.

Named axes: while interpreting, the axis (name, size) is on a stack that the
collective primitives' batch rules read (`axis_frame()`), see
`astjax.primitives.collectives`. Collectives are batched even when their operands
are unmapped (`psum` of an unmapped x is `x * axis_size`, `axis_index` is an iota).
"""
from __future__ import annotations

import types
from collections.abc import Callable

import numpy as np

from astjax import core
from astjax.core import Literal, ShapedArray, bind
from astjax.errors import ArgumentTypeError, ShapeError, caller_location

not_mapped = None

# Primitives whose batch rule runs even when no operand is mapped (collectives).

# ------------------------------------------------------------------ axis frames



# ----------------------------------------------------------------- axis helpers


from astjax.primitives.untyped_made import staging_untyped  # noqa: E402
from astjax.primitives.base import (bdim_at_front, broadcast_batch, mapped_aval,  # noqa: E402
                                    matchaxis, moveaxis, shift_axis, unmapped_aval)


def ndim(x):
    return core.get_aval(x).ndim


# ------------------------------------------------------------------ interpreter


def _read_literal(lit: Literal):
    if lit.aval.weak_type and lit.aval.ndim == 0:
        return core.WeakConst(np.asarray(lit.val, lit.aval.dtype))
    return np.asarray(lit.val, lit.aval.dtype)[()] if lit.aval.ndim == 0 else lit.val


def batch_jaxpr(closed, in_dims, axis_size, axis_name, args):
    """Stage the batched version of `closed` into the current builder.

    `args` are the (batched) values of the jaxpr's invars, `in_dims` their batch
    dims (None: unmapped). Consts of `closed` are unmapped. Returns
    (outs, out_dims)."""
    if isinstance(closed, core.Jaxpr):
        closed = core.ClosedJaxpr(closed, [])
    jaxpr = closed.jaxpr
    env: dict = {}

    def read(a):
        if isinstance(a, Literal):
            return _read_literal(a), not_mapped
        return env[a]

    for v, c in zip(jaxpr.constvars, closed.consts):
        env[v] = (c, not_mapped)
    for v, x, d in zip(jaxpr.invars, args, in_dims):
        env[v] = (x, d)
    with core.extend_axis_env(axis_name, axis_size):
        for eqn in jaxpr.eqns:
            ins = [read(a) for a in eqn.invars]
            vals = [x for x, _ in ins]
            dims = [d for _, d in ins]
            prim = eqn.primitive
            if prim in core.KEY_TYPE_READERS:
                core.type_keys_as(eqn.invars, vals)
            if all(d is not_mapped for d in dims) and not prim.always_batch:
                with core.source_info_context(eqn.source_info.replace(phase="batched")):
                    outs = bind(prim, *vals, **eqn.params)
                out_dims = ([not_mapped] * len(eqn.outvars) if prim.multiple_results
                            else not_mapped)
            else:
                rule = core.rule(prim, "batch", eqn.source_info, tx=tx)
                # (its constants: no replicated Explicit type)
                with staging_untyped(eqn.source_info, phase="batched"):
                    outs, out_dims = rule(vals, dims, **eqn.params)
            if prim.multiple_results:
                for v, x, d in zip(eqn.outvars, outs, out_dims):
                    env[v] = (x, d)
            else:
                env[eqn.outvars[0]] = (outs, out_dims)
        results = [read(a) for a in jaxpr.outvars]
    return [x for x, _ in results], [d for _, d in results]


def batch_subjaxpr(closed, in_dims, axis_size, axis_name, force_out=None, out_front=True):
    """Batch a nested jaxpr into a new closed jaxpr without consts.

    `in_dims`: batch dim of each invar (mapped invars get the batch axis inserted
    there). `force_out[i]` True: output i is made mapped. Mapped outputs are moved
    to dim 0 (`out_front`). Returns (ClosedJaxpr, consts, out_mapped) where the
    consts, values of the enclosing builder that the batched body captured, become
    leading invars of the returned jaxpr (pass them as extra operands)."""
    in_avals = [mapped_aval(a, d, axis_size) for a, d in zip(closed.in_avals, in_dims)]
    out_mapped = [None]

    def body(*args):
        outs, dims = batch_jaxpr(closed, in_dims, axis_size, axis_name, list(args))
        res, mapped = [], []
        for i, (x, d) in enumerate(zip(outs, dims)):
            force = bool(force_out[i]) if force_out is not None else False
            if d is not_mapped and force:
                with core.extend_axis_env(axis_name, axis_size):
                    x, d = broadcast_batch(x, axis_size, 0), 0
            elif d is not not_mapped and out_front:
                with core.extend_axis_env(axis_name, axis_size):
                    x, d = moveaxis(x, d, 0), 0
            res.append(x)
            mapped.append(d is not not_mapped)
        out_mapped[0] = mapped
        return res

    cj = core.stage(body, in_avals)
    return core.closure_convert(cj.jaxpr), list(cj.consts), out_mapped[0]


_mapped_cache: dict = {}


def mapped_outputs(closed, in_dims, axis_size, axis_name):
    """Which outputs of `closed` are mapped for these input dims (stages a throwaway
    copy; cached, so that fixpoints over nested loops stay linear in the depth)."""
    key = (id(closed), tuple(in_dims), axis_size, axis_name)
    hit = _mapped_cache.get(key)
    if hit is not None and hit[0] is closed:
        return list(hit[1])
    _, _, mapped = batch_subjaxpr(closed, in_dims, axis_size, axis_name)
    if len(_mapped_cache) > 256:
        _mapped_cache.clear()
    _mapped_cache[key] = (closed, tuple(mapped))
    return mapped

# What the rules of higher-order primitives receive as `tx` (see core.Primitive).
tx = types.SimpleNamespace(batch_jaxpr=batch_jaxpr, batch_subjaxpr=batch_subjaxpr,
                           mapped_outputs=mapped_outputs)


# -- vmappable types (JAX's `batching.register_vmappable`) -----------------------------

vmappables: dict[type, tuple[Callable, Callable]] = {}
"""Types `vmap` maps as a whole: {type: (to_elt, from_elt)}. `to_elt(cont, axis_size, val,
axis)` is the per-example value of `val` mapped along `axis`, its arrays made by
`cont(x, axis)`; `from_elt(cont, axis_size, elt, axis)` the batched value of the
per-example `elt` with the mapped axis at `axis`, its arrays made by
`cont(axis_size, x, axis)` (sparse `BCOO`: the axis is one of its batch axes)."""


def register_vmappable(data_type, spec_type, axis_size_type, to_elt, from_elt, make_iota):
    """Have `vmap` map values of `data_type` with `to_elt` / `from_elt` (see
    `vmappables`); only int axis specs and sizes (`spec_type`, `axis_size_type`) are
    supported, as JAX's vmap passes them, and `make_iota` is not used."""
    if spec_type is not int or axis_size_type is not int:
        raise ArgumentTypeError(f"register_vmappable: only int axis specs and sizes are "
                                f"supported, got {spec_type!r}, {axis_size_type!r}",
                                hint="pass int, int (as JAX's sparse types do)",
                                loc=caller_location())
    vmappables[data_type] = (to_elt, from_elt)


def unregister_vmappable(data_type):
    """Undo `register_vmappable(data_type, ...)`."""
    del vmappables[data_type]


def is_vmappable(x):
    """Whether `vmap` maps `x` as a whole (its type was registered)."""
    return type(x) in vmappables
