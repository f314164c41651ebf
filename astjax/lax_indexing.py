"""`lax` wrappers for gather/scatter: `gather`, `scatter`, `scatter_add/mul/min/max`,
`GatherDimensionNumbers`, `ScatterDimensionNumbers`, `GatherScatterMode` (argmax,
argmin, the cumulative reductions and sorting are in their primitive families).

Defaults are jax 0.10.2's: `mode=None` is PROMISE_IN_BOUNDS for `gather` (XLA then
clamps) and FILL_OR_DROP for the scatters (out-of-bounds windows are dropped);
`mode="fill"` gathers read `fill_value` (by default NaN / the integer extreme / True)
for out-of-bounds windows."""
from __future__ import annotations

import numpy as np

from . import core, dtypes
from .core import bind
from .primitives import indexing as _ix
from .primitives.indexing import (GatherDimensionNumbers, GatherScatterMode,  # noqa: F401
                                  ScatterDimensionNumbers)

__all__ = ["gather", "scatter", "scatter_add", "scatter_mul", "scatter_min", "scatter_max",
           "scatter_apply", "GatherDimensionNumbers", "ScatterDimensionNumbers",
           "GatherScatterMode"]


def _tuple(xs):
    return tuple(int(x) for x in xs)


def _operand(x):
    if isinstance(x, (list, tuple)):
        return np.asarray(x, dtypes.canonicalize(np.asarray(x).dtype))
    return x


def _like(x, dtype):
    """A Python scalar (or list) as a value of `dtype`; arrays pass through."""
    if dtypes.is_weak_scalar(x) or isinstance(x, (list, tuple, bool)):
        return np.asarray(x, dtype)
    return x


def gather(operand, start_indices, dimension_numbers, slice_sizes, *, unique_indices=False,
           indices_are_sorted=False, mode=None, fill_value=None):
    dn = dimension_numbers
    dn = GatherDimensionNumbers(_tuple(dn.offset_dims), _tuple(dn.collapsed_slice_dims),
                                _tuple(dn.start_index_map),
                                _tuple(getattr(dn, "operand_batching_dims", ())),
                                _tuple(getattr(dn, "start_indices_batching_dims", ())))
    mode = GatherScatterMode.from_any(GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else mode)
    operand = _operand(operand)
    if mode == GatherScatterMode.FILL_OR_DROP:
        if fill_value is None:
            fill_value = _ix.default_fill_value(core.get_aval(operand).dtype)
    else:
        fill_value = None
    return bind(_ix.gather_p, operand, _operand(start_indices), dimension_numbers=dn,
                slice_sizes=_tuple(slice_sizes), indices_are_sorted=bool(indices_are_sorted),
                unique_indices=bool(unique_indices), mode=mode, fill_value=fill_value)


def _scatter(p):
    def f(operand, scatter_indices, updates, dimension_numbers, *, indices_are_sorted=False,
          unique_indices=False, mode=None):
        dn = dimension_numbers
        dn = ScatterDimensionNumbers(_tuple(dn.update_window_dims),
                                     _tuple(dn.inserted_window_dims),
                                     _tuple(dn.scatter_dims_to_operand_dims),
                                     _tuple(getattr(dn, "operand_batching_dims", ())),
                                     _tuple(getattr(dn, "scatter_indices_batching_dims", ())))
        operand = _operand(operand)
        updates = _like(updates, core.get_aval(operand).dtype)
        return bind(p, operand, _operand(scatter_indices), updates, dimension_numbers=dn,
                    indices_are_sorted=bool(indices_are_sorted),
                    unique_indices=bool(unique_indices), mode=GatherScatterMode.from_any(mode),
                    update_jaxpr=None, update_consts=())
    f.__name__ = p.name.replace("-", "_")
    return f


scatter = _scatter(_ix.scatter_p)
scatter_add = _scatter(_ix.scatter_add_p)
scatter_mul = _scatter(_ix.scatter_mul_p)
scatter_min = _scatter(_ix.scatter_min_p)
scatter_max = _scatter(_ix.scatter_max_p)


def scatter_apply(operand, scatter_indices, func, dimension_numbers, *, update_shape=(),
                  indices_are_sorted=False, unique_indices=False, mode=None):
    """`func` applied at the scattered positions (as gather + func + scatter)."""
    from .primitives.indexing import GatherDimensionNumbers as G
    dn = dimension_numbers
    aval = core.get_aval(operand)
    sizes, pos = [], 0
    for d in range(aval.ndim):
        if d in dn.inserted_window_dims or d in getattr(dn, "operand_batching_dims", ()):
            sizes.append(1)
        else:
            sizes.append(update_shape[dn.update_window_dims[pos]])
            pos += 1
    gdn = G(dn.update_window_dims, dn.inserted_window_dims, dn.scatter_dims_to_operand_dims,
            getattr(dn, "operand_batching_dims", ()),
            getattr(dn, "scatter_indices_batching_dims", ()))
    got = gather(operand, scatter_indices, gdn, sizes, mode=GatherScatterMode.CLIP)
    return scatter(operand, scatter_indices, func(got), dn, indices_are_sorted=indices_are_sorted,
                   unique_indices=unique_indices, mode=mode)
