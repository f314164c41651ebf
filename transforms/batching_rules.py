"""Batch rules for every primitive (control flow and collectives aside: see
`batching` and `astjax.primitives.collectives`).

Signature: `rule(args, dims, **params) -> (out, out_dim)` (lists for primitives with
several results); `dims[i]` is where the batch axis of `args[i]` is, or None.
Families share one rule each:

- `vectorized`: elementwise with one operand (and shape-preserving ops): the batch
  dim stays where it is.
- `broadcasting`: elementwise n-ary ops whose operands have one shape, except that
  rank-0 operands broadcast (lax semantics): unmapped rank-0 operands stay scalars,
  everything else is brought to the full batched shape with the batch axis of the
  first mapped full-rank operand.
- `reducer`: ops with an `axes` param (reductions, argmax/argmin): the axes are
  shifted past the batch dim, which moves left by the number of axes before it.
- `cumulative`: ops with an `axis` param that keep the shape (cumsum, ...).
- `front`: ops that accept leading batch dimensions (linalg): move to 0.
Everything else has its own rule below. Rules for primitives declared in files that
may not exist yet are registered by name, when the primitive exists.
"""
from __future__ import annotations

import numpy as np

from astjax import core, dtypes
from astjax.core import bind

from .batching import (always_batch, axis_size, bdim_at_front, matchaxis, moveaxis,
                       not_mapped, shift_axis)

import astjax.primitives  # noqa: E402,F401  (every family: its primitives exist; no importlib)


def _aval(x):
    return core.get_aval(x)


def _prim(name):
    return core.primitives.get(name)

# --------------------------------------------------------------------- families


from astjax.primitives.base import (defbroadcasting as broadcasting,  # noqa: E402
                                    defcumulative as cumulative, deffront as front,
                                    defno_operands as no_operands, defreducer as reducer,
                                    defvectorized as vectorized)


def _register(name, rule_factory, *a, **kw):
    p = _prim(name)
    if p is not None and p not in core.batch_rules:
        core.batch_rules[p] = rule_factory(p, *a, **kw)


_register("stop_gradient", vectorized)

# ------------------------------------------------------------------- structural


def _gather_batch(args, dims, *, dimension_numbers, slice_sizes, **params):
    from astjax.primitives.indexing import GatherDimensionNumbers
    operand, indices = args
    od, idd = dims
    dn = dimension_numbers
    inc = lambda t: tuple(int(v) + 1 for v in t)  # noqa: E731
    if idd is None:
        operand = moveaxis(operand, od, 0)
        size = _aval(operand).shape[0]
        dn2 = GatherDimensionNumbers(
            offset_dims=(0,) + inc(dn.offset_dims), collapsed_slice_dims=inc(dn.collapsed_slice_dims),
            start_index_map=inc(dn.start_index_map),
            operand_batching_dims=inc(dn.operand_batching_dims),
            start_indices_batching_dims=tuple(dn.start_indices_batching_dims))
        sizes = (size,) + tuple(slice_sizes)
    elif od is None:
        indices = moveaxis(indices, idd, 0)
        dn2 = GatherDimensionNumbers(
            offset_dims=inc(dn.offset_dims), collapsed_slice_dims=tuple(dn.collapsed_slice_dims),
            start_index_map=tuple(dn.start_index_map),
            operand_batching_dims=tuple(dn.operand_batching_dims),
            start_indices_batching_dims=inc(dn.start_indices_batching_dims))
        sizes = tuple(slice_sizes)
    else:
        operand, indices = moveaxis(operand, od, 0), moveaxis(indices, idd, 0)
        dn2 = GatherDimensionNumbers(
            offset_dims=inc(dn.offset_dims), collapsed_slice_dims=inc(dn.collapsed_slice_dims),
            start_index_map=inc(dn.start_index_map),
            operand_batching_dims=(0,) + inc(dn.operand_batching_dims),
            start_indices_batching_dims=(0,) + inc(dn.start_indices_batching_dims))
        sizes = (1,) + tuple(slice_sizes)
    return bind(_prim("gather"), operand, indices, dimension_numbers=dn2, slice_sizes=sizes,
                **params), 0


def scatter_rule(p):
    def rule(args, dims, *, dimension_numbers, **params):
        from astjax.primitives.indexing import ScatterDimensionNumbers
        operand, indices, updates = args
        od, idd, ud = dims
        size = axis_size()
        dn = dimension_numbers
        inc = lambda t: tuple(int(v) + 1 for v in t)  # noqa: E731
        operand = matchaxis(operand, od, 0, size)
        updates = matchaxis(updates, ud, 0, size)
        if idd is None:
            dn2 = ScatterDimensionNumbers(
                update_window_dims=(0,) + inc(dn.update_window_dims),
                inserted_window_dims=inc(dn.inserted_window_dims),
                scatter_dims_to_operand_dims=inc(dn.scatter_dims_to_operand_dims),
                operand_batching_dims=inc(dn.operand_batching_dims),
                scatter_indices_batching_dims=tuple(dn.scatter_indices_batching_dims))
        else:
            indices = moveaxis(indices, idd, 0)
            dn2 = ScatterDimensionNumbers(
                update_window_dims=inc(dn.update_window_dims),
                inserted_window_dims=inc(dn.inserted_window_dims),
                scatter_dims_to_operand_dims=inc(dn.scatter_dims_to_operand_dims),
                operand_batching_dims=(0,) + inc(dn.operand_batching_dims),
                scatter_indices_batching_dims=(0,) + inc(dn.scatter_indices_batching_dims))
        return bind(p, operand, indices, updates, dimension_numbers=dn2, **params), 0
    return rule


for _n, _r in (("gather", _gather_batch),):
    _register(_n, lambda p, r=_r: r)
for _n in ("scatter", "scatter-add", "scatter-mul", "scatter-min", "scatter-max",
           "scatter_add", "scatter_mul", "scatter_min", "scatter_max"):
    _register(_n, scatter_rule)

# Collectives: rules live in astjax.primitives.collectives; they run even when the
# operands are unmapped (`axis_index` has none, `psum` of an unmapped x is x * n).
for _n in ("psum", "pmax", "pmin", "axis_index", "all_gather", "ppermute", "all_to_all"):
    if _prim(_n) is not None:
        always_batch.add(_prim(_n))


__all__ = ["vectorized", "broadcasting", "reducer", "cumulative", "front", "no_operands",
           "scatter_rule", "always_batch", "not_mapped"]

from . import batching_custom  # noqa: E402,F401  (checkpoint, custom_jvp_call, custom_vjp_call)
