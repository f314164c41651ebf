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

import importlib

import numpy as np

from astjax import core, dtypes
from astjax.core import bind

from .batching import (always_batch, axis_size, bdim_at_front, matchaxis, moveaxis,
                       not_mapped, shift_axis)

# make sure every primitive module is imported, so its primitives get rules
for _m in ("elementwise", "structural", "reductions", "control", "indexing", "cumulative",
           "sort", "linalg", "ad_prims", "collectives", "random", "special", "fft", "misc"):
    try:
        importlib.import_module(f"astjax.primitives.{_m}")
    except ImportError:
        pass


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


for _n in ("convert_element_type", "copy", "bitcast_convert_type", "stop_gradient",
           "reduce_precision", "random_wrap", "random_unwrap",
           "optimization_barrier_1"):
    _register(_n, vectorized)
_register("select_n", broadcasting, scalar_ok={0})
_register("clamp", broadcasting, scalar_ok={0, 2})
for _n in ("threefry2x32",):
    _register(_n, broadcasting)
_register("iota", no_operands)
for _n in ("reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "reduce_and", "reduce_or",
           "reduce_xor", "argmax", "argmin"):
    _register(_n, reducer)
for _n in ("cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp"):
    _register(_n, cumulative)

# ------------------------------------------------------------------- structural


def _bid_batch(args, dims, *, shape, broadcast_dimensions, **params):
    x = moveaxis(args[0], dims[0], 0)
    size = _aval(x).shape[0]
    return bind(_prim("broadcast_in_dim"), x, shape=(size,) + tuple(shape),
                broadcast_dimensions=(0,) + tuple(b + 1 for b in broadcast_dimensions),
                **params), 0


def _reshape_batch(args, dims, *, new_sizes, dimensions=None, **params):
    x = moveaxis(args[0], dims[0], 0)
    size = _aval(x).shape[0]
    return bind(_prim("reshape"), x, new_sizes=(size,) + tuple(new_sizes), dimensions=None,
                **params), 0


def _transpose_batch(args, dims, *, permutation):
    x, d = args[0], dims[0]
    perm = [shift_axis(p, d) for p in permutation]
    perm.insert(d, d)
    return bind(_prim("transpose"), x, permutation=tuple(perm)), d


def _squeeze_batch(args, dims, *, dimensions):
    x, d = args[0], dims[0]
    nd = _aval(x).ndim - 1
    dimensions = [a % nd for a in dimensions]
    return (bind(_prim("squeeze"), x, dimensions=tuple(sorted(shift_axis(a, d) for a in dimensions))),
            d - sum(1 for a in dimensions if a < d))


def _expand_dims_batch(args, dims, *, dimensions):
    x = moveaxis(args[0], dims[0], 0)
    nd = _aval(x).ndim - 1 + len(dimensions)
    return bind(_prim("expand_dims"), x,
                dimensions=tuple(a % nd + 1 for a in dimensions)), 0


def _rev_batch(args, dims, *, dimensions):
    x, d = args[0], dims[0]
    nd = max(_aval(x).ndim - 1, 1)
    return bind(_prim("rev"), x,
                dimensions=tuple(shift_axis(a % nd, d) for a in dimensions)), d


def _concatenate_batch(args, dims, *, dimension):
    size = axis_size()
    xs = [matchaxis(x, d, 0, size) for x, d in zip(args, dims)]
    nd = max(_aval(xs[0]).ndim - 1, 1)
    return bind(_prim("concatenate"), *xs, dimension=dimension % nd + 1), 0


def _pad_batch(args, dims, *, padding_config):
    from astjax import lax
    size = axis_size()
    x, pv = args
    xd, pd = dims
    x = matchaxis(x, xd, 0, size)
    cfg = ((0, 0, 0),) + tuple(padding_config)
    if pd is None:
        return bind(_prim("pad"), x, pv, padding_config=cfg), 0
    # a per-lane padding value: pad with zero, then select the padding positions
    a = _aval(x)
    zero = np.zeros((), a.dtype)[()]
    padded = bind(_prim("pad"), x, zero, padding_config=cfg)
    ones = lax.full(a.shape, np.ones((), dtypes.bool_)[()], dtypes.bool_)
    mask = bind(_prim("pad"), ones, np.bool_(False), padding_config=cfg)
    pshape = _aval(padded).shape
    pvb = lax.broadcast_in_dim(moveaxis(pv, pd, 0), pshape, (0,))
    return bind(_prim("select_n"), mask, pvb, padded), 0


def _slice_batch(args, dims, *, start_indices, limit_indices, strides=None):
    x, d = args[0], dims[0]
    size = _aval(x).shape[d]
    st, li = list(start_indices), list(limit_indices)
    st.insert(d, 0)
    li.insert(d, size)
    if strides is not None:
        strides = list(strides)
        strides.insert(d, 1)
        strides = tuple(strides)
    return bind(_prim("slice"), x, start_indices=tuple(st), limit_indices=tuple(li),
                strides=strides), d


def _index_matrix(idx, idx_dims, size):
    """Per-example scalar indices (some mapped, shape (B,)) -> int32 (B, n)."""
    from astjax import lax
    cols = []
    for i, d in zip(idx, idx_dims):
        if _aval(i).dtype != dtypes.int32:
            i = lax.convert_element_type(i, dtypes.int32)
        if d is None:
            col = lax.broadcast_in_dim(i, (size, 1), ())
        else:
            col = lax.reshape(i, (size, 1))
        cols.append(col)
    return lax.concatenate(cols, 1) if len(cols) > 1 else cols[0]


def _dynamic_slice_batch(args, dims, *, slice_sizes):
    x, idx = args[0], list(args[1:])
    xd, idx_d = dims[0], list(dims[1:])
    size = axis_size()
    if all(d is None for d in idx_d):
        idx.insert(xd, np.int32(0))
        sizes = list(slice_sizes)
        sizes.insert(xd, size)
        return bind(_prim("dynamic_slice"), x, *idx, slice_sizes=tuple(sizes)), xd
    from astjax.primitives.indexing import GatherDimensionNumbers, GatherScatterMode
    n = len(slice_sizes)
    ind = _index_matrix(idx, idx_d, size)
    if xd is None:
        dn = GatherDimensionNumbers(offset_dims=tuple(range(1, n + 1)), collapsed_slice_dims=(),
                                    start_index_map=tuple(range(n)))
        sizes = tuple(slice_sizes)
    else:
        x = moveaxis(x, xd, 0)
        dn = GatherDimensionNumbers(offset_dims=tuple(range(1, n + 1)), collapsed_slice_dims=(),
                                    start_index_map=tuple(range(1, n + 1)),
                                    operand_batching_dims=(0,), start_indices_batching_dims=(0,))
        sizes = (1,) + tuple(slice_sizes)
    return bind(_prim("gather"), x, ind, dimension_numbers=dn, slice_sizes=sizes,
                indices_are_sorted=False, unique_indices=False, mode=GatherScatterMode.CLIP,
                fill_value=None), 0


def _dynamic_update_slice_batch(args, dims):
    x, upd, idx = args[0], args[1], list(args[2:])
    xd, ud, idx_d = dims[0], dims[1], list(dims[2:])
    size = axis_size()
    x = matchaxis(x, xd, 0, size)
    upd = matchaxis(upd, ud, 0, size)
    if all(d is None for d in idx_d):
        return bind(_prim("dynamic_update_slice"), x, upd, np.int32(0), *idx), 0
    from astjax.primitives.indexing import GatherScatterMode, ScatterDimensionNumbers
    n = len(idx)
    ind = _index_matrix(idx, idx_d, size)
    dn = ScatterDimensionNumbers(update_window_dims=tuple(range(1, n + 1)),
                                 inserted_window_dims=(),
                                 scatter_dims_to_operand_dims=tuple(range(1, n + 1)),
                                 operand_batching_dims=(0,), scatter_indices_batching_dims=(0,))
    return bind(_prim("scatter"), x, ind, upd, dimension_numbers=dn, indices_are_sorted=True,
                unique_indices=True, mode=GatherScatterMode.CLIP, update_jaxpr=None,
                update_consts=()), 0


def _dot_general_batch(args, dims, *, dimension_numbers, **params):
    from astjax.primitives.reductions import dot_dims
    lhs, rhs = args
    ld, rd = dims
    (lc, rc), (lb, rb) = dimension_numbers
    la, ra = _aval(lhs), _aval(rhs)
    if ld is not None and rd is not None:
        lhs, rhs = moveaxis(lhs, ld, 0), moveaxis(rhs, rd, 0)
        dn = dot_dims(([c + 1 for c in lc], [c + 1 for c in rc]),
                      ([0] + [b + 1 for b in lb], [0] + [b + 1 for b in rb]))
        out_d = 0
    elif ld is not None:
        lc2, lb2 = [shift_axis(c, ld) for c in lc], [shift_axis(b, ld) for b in lb]
        dn = dot_dims((lc2, rc), (lb2, rb))
        free = [i for i in range(la.ndim) if i not in lc2 and i not in lb2]
        out_d = len(lb) + free.index(ld)
    else:
        rc2, rb2 = [shift_axis(c, rd) for c in rc], [shift_axis(b, rd) for b in rb]
        dn = dot_dims((lc, rc2), (lb, rb2))
        n_lfree = la.ndim - len(lc) - len(lb)
        free = [i for i in range(ra.ndim) if i not in rc2 and i not in rb2]
        out_d = len(lb) + n_lfree + free.index(rd)
    return bind(_prim("dot_general"), lhs, rhs, dimension_numbers=dn, **params), out_d


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


def _sort_batch(args, dims, *, dimension, **params):
    size = axis_size()
    xs = [matchaxis(x, d, 0, size) for x, d in zip(args, dims)]
    nd = max(_aval(xs[0]).ndim - 1, 1)
    outs = bind(_prim("sort"), *xs, dimension=dimension % nd + 1, **params)
    return outs, [0] * len(outs)


for _n, _r in (("broadcast_in_dim", _bid_batch), ("reshape", _reshape_batch),
               ("transpose", _transpose_batch), ("squeeze", _squeeze_batch),
               ("expand_dims", _expand_dims_batch), ("rev", _rev_batch),
               ("concatenate", _concatenate_batch), ("pad", _pad_batch),
               ("slice", _slice_batch), ("dynamic_slice", _dynamic_slice_batch),
               ("dynamic_update_slice", _dynamic_update_slice_batch),
               ("dot_general", _dot_general_batch), ("gather", _gather_batch),
               ("sort", _sort_batch)):
    _register(_n, lambda p, r=_r: r)
for _n in ("scatter", "scatter-add", "scatter-mul", "scatter-min", "scatter-max",
           "scatter_add", "scatter_mul", "scatter_min", "scatter_max"):
    _register(_n, scatter_rule)

# ------------------------------------------------------------------------ linalg
# Linear-algebra primitives act on the trailing dims and accept leading batch dims.
for _n in ("cholesky", "triangular_solve", "lu", "qr", "householder_product", "eigh", "eig",
           "svd", "lu_pivots_to_permutation", "schur", "tridiagonal", "tridiagonal_solve",
           "hessenberg", "cholesky_update"):
    _register(_n, front)


# Collectives: rules live in astjax.primitives.collectives; they run even when the
# operands are unmapped (`axis_index` has none, `psum` of an unmapped x is x * n).
for _n in ("psum", "pmax", "pmin", "axis_index", "all_gather", "ppermute", "all_to_all"):
    if _prim(_n) is not None:
        always_batch.add(_prim(_n))


__all__ = ["vectorized", "broadcasting", "reducer", "cumulative", "front", "no_operands",
           "scatter_rule", "always_batch", "not_mapped"]

from . import batching_custom  # noqa: E402,F401  (checkpoint, custom_jvp_call, custom_vjp_call)
