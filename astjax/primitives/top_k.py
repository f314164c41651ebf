"""The top-k family: `top_k`, the `k` largest entries along one axis and their int32
indices, largest first (`lax.top_k_p`, `lax.top_k(operand, k, *, axis=-1)` as in JAX
0.10.2), and `approx_top_k` (`lax.approx_top_k_p`, `approx_max_k` / `approx_min_k`).

- Checks (JAX's classes): k nonnegative and at most the axis's size, an operand of
  rank >= 1, no complex values (ValueErrors; rank 0 is a TypeError).
- Lowering: JAX's -- `chlo.top_k` along the last axis, the axis swapped there and back
  by transposes when it is another one.
- JVP: the tangent gathered at the indices (a gather batched over the other axes);
  the indices have no tangent. Batching moves `axis` past the mapped axis.
- The NumPy reference sorts stably, so equal values keep the lower index first, and a
  NaN counts as larger than every number.
- `approx_top_k` keeps JAX's params (`reduction_dimension` as given, possibly
  negative); with `aggregate_to_topk=False` its output size is XLA's
  (`_partial_output_size`). On CPU JAX lowers it to XLA's ApproxTopK custom call, whose
  CPU fallback is exact: astjax lowers that exact result directly (`top_k` for the
  largest, a stable sort for the smallest). JVP: the tangent at the indices.
"""
from __future__ import annotations

import math
import operator

import numpy as np

from .. import core, dtypes
from ..core import ShapedArray, bind
from ..errors import ArgumentValueError, ShapeError
from . import gather as ix
from .base import as_operand, is_zero, lowering_from, register
from .base import tangent_aval as _aval
from .slicing import slice_in_dim
from .sort import sort
from .structural import broadcasted_iota, reshape

__all__ = ["top_k_p", "top_k", "approx_top_k_p", "approx_max_k", "approx_min_k"]

top_k_p = core.new_primitive("top_k", multiple_results=True)


def _top_k_ae(x, *, k, axis):
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        raise ArgumentValueError("top_k is not compatible with complex inputs.")
    if k < 0:
        raise ArgumentValueError(f"k argument to top_k must be nonnegative, got {k}")
    if x.ndim == 0:
        raise ShapeError(f"top_k operand must have >= 1 dimension, got {x.shape}")
    if not 0 <= axis < x.ndim:
        raise ArgumentValueError(f"axis argument out of range: axis={axis} for "
                                 f"operand.shape={x.shape}")
    if x.shape[axis] < k:
        raise ArgumentValueError("k argument to top_k must be no larger than size along axis;"
                                 f" got k={k} with shape={list(x.shape)} and axis={axis}")
    shape = x.shape[:axis] + (k,) + x.shape[axis + 1:]
    return [ShapedArray(shape, x.dtype, x.weak_type), ShapedArray(shape, dtypes.int32)]


def _top_k_impl(x, *, k, axis):
    x = np.moveaxis(np.asarray(x), axis, -1)
    n = x.shape[-1]
    # a stable ascending sort of the reversed row, read backwards: descending, ties
    # by lower index
    order = np.argsort(x[..., ::-1], axis=-1, kind="stable")[..., ::-1][..., :k]
    idx = (n - 1 - order).astype(np.int32)
    vals = np.take_along_axis(x, idx, axis=-1)
    return [np.moveaxis(vals, -1, axis), np.moveaxis(idx, -1, axis)]


def _top_k_lowering(ctx, x, *, k, axis):
    a = ctx.avals_in[0]
    last = a.ndim - 1
    perm = list(range(a.ndim))
    perm[axis], perm[last] = perm[last], perm[axis]
    outs_last = [o.update(shape=tuple(o.shape[p] for p in perm)) for o in ctx.avals_out]
    if axis != last:
        x = ctx.op1("stablehlo.transpose", [x], a.update(shape=tuple(a.shape[p] for p in perm)),
                    attrs={"permutation": ctx.i64(perm)})
    outs = ctx.op("chlo.top_k", [x], outs_last, attrs={"k": f"{k} : i64"})
    if axis != last:
        outs = [ctx.op1("stablehlo.transpose", [o], aval, attrs={"permutation": ctx.i64(perm)})
                for o, aval in zip(outs, ctx.avals_out)]
    return outs


def _take_at(t, idx, axis):
    """`t`'s entries at `idx` along `axis` (JAX's take_along_axis: a gather batched
    over the other axes)."""
    shape = _aval(idx).shape
    others = tuple(d for d in range(len(shape)) if d != axis)
    dn = ix.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(axis,),
                                   start_index_map=(axis,), operand_batching_dims=others,
                                   start_indices_batching_dims=others)
    return bind(ix.gather_p, t, reshape(idx, shape + (1,)), dimension_numbers=dn,
                slice_sizes=(1,) * len(shape), indices_are_sorted=False, unique_indices=False,
                mode=ix.GatherScatterMode.PROMISE_IN_BOUNDS, fill_value=None)


def _top_k_jvp(primals, tangents, *, k, axis):
    (x,), (t,) = primals, tangents
    vals, idx = bind(top_k_p, x, k=k, axis=axis)
    if is_zero(t):
        return [vals, idx], [core.Zero(_aval(vals)), core.Zero(_aval(idx))]
    return [vals, idx], [_take_at(t, idx, axis), core.Zero(_aval(idx))]


def _top_k_batch(args, dims, *, k, axis):
    (x,), (d,) = args, dims
    outs = bind(top_k_p, x, k=k, axis=axis + 1 if d <= axis else axis)
    return outs, [d, d]


register(top_k_p, impl=_top_k_impl, abstract_eval=_top_k_ae, lowering=_top_k_lowering,
         jvp=_top_k_jvp, batch=_top_k_batch)


def top_k(operand, k, *, axis=-1):
    """`lax.top_k`: the `k` largest entries of `operand` along `axis` (default the
    last) and their int32 indices, largest first, as a list `[values, indices]` (JAX's
    type); ties keep the lower index first."""
    operand = as_operand(operand)
    k = operator.index(k)
    if k < 0:
        raise ArgumentValueError(f"k argument to top_k must be nonnegative, got {k}")
    ndim = core.get_aval(operand).ndim
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ArgumentValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return list(bind(top_k_p, operand, k=k, axis=axis % ndim))

# ------------------------------------------------------------------- approx_top_k


approx_top_k_p = core.new_primitive("approx_top_k", multiple_results=True)


def _log2_floor(n):
    return n.bit_length() - 1 if n > 0 else 0


def _log2_ceil(n):
    return (n - 1).bit_length() if n > 0 else 0


def _partial_output_size(size, rank, k, recall_target, size_override):
    """How many entries `approx_max_k(..., aggregate_to_topk=False)` returns: XLA's
    ApproxTopK output size (the accelerator kernel's reduced size: a multiple of the
    TPU tiling, 1024 for rank 1 and 128 otherwise, large enough for the recall
    target); on CPU they are the exact best entries of that count, sorted."""
    tiling = 1024 if rank == 1 else 128
    if size <= tiling:
        return size
    if 0 <= size_override < size:
        raise ArgumentValueError(f"reduction_input_size_override: {size_override} should be "
                                 f"greater equals to operands[reduction_dim]: {size}")
    logical = size_override if size_override >= 0 else size
    if k == 1:
        return tiling
    target = float(np.float32(recall_target))
    if target >= 1.0:
        return size
    # windows needed so that the top k collide with the recall target's probability
    windows = min(max(int((1.0 - k) / math.log(target)), tiling), size)
    steps = _log2_floor(logical // windows)
    if steps == 0:
        return size
    steps = min(steps, _log2_ceil(size // tiling))
    return -(-(-(-size // tiling)) // (1 << steps)) * tiling


def _approx_ae(x, *, k, reduction_dimension, recall_target, is_max_k,
               reduction_input_size_override, aggregate_to_topk):
    if k <= 0:
        raise ArgumentValueError(f"k must be positive, got {k}")
    if x.ndim == 0:
        raise ShapeError(f"approx_top_k operand must have >= 1 dimension, got {x.shape}")
    if not -x.ndim <= reduction_dimension < x.ndim:
        raise ArgumentValueError(f"reduction_dimension {reduction_dimension} is out of bounds "
                                 f"for an operand of rank {x.ndim}")
    dims = list(x.shape)
    size = dims[reduction_dimension]
    if size < k:
        raise ArgumentValueError(f"k must be smaller than the size of reduction_dim {size}, "
                                 f"got {k}")
    if not dtypes.is_float(x.dtype):
        raise ArgumentValueError("operand must be a floating type")
    dims[reduction_dimension] = k if aggregate_to_topk else _partial_output_size(
        size, x.ndim, k, recall_target, reduction_input_size_override)
    return [ShapedArray(dims, x.dtype, x.weak_type), ShapedArray(dims, dtypes.int32)]


def _approx_impl(x, *, k, reduction_dimension, is_max_k, **params):
    x = np.asarray(x)
    n = _approx_ae(core.get_aval(x), k=k, reduction_dimension=reduction_dimension,
                   is_max_k=is_max_k, **params)[0].shape[reduction_dimension]
    if is_max_k:
        return _top_k_impl(x, k=n, axis=reduction_dimension % x.ndim)
    moved = np.moveaxis(x, reduction_dimension, -1)
    idx = np.argsort(moved, axis=-1, kind="stable")[..., :n].astype(np.int32)
    vals = np.take_along_axis(moved, idx, axis=-1)
    return [np.moveaxis(vals, -1, reduction_dimension),
            np.moveaxis(idx, -1, reduction_dimension)]


def _approx_exact(x, *, k, reduction_dimension, is_max_k, **params):
    """What XLA's CPU fallback of ApproxTopK computes: the exact best entries, in order
    (a stable sort: ties keep the lower index first)."""
    aval = core.get_aval(x)
    dim = reduction_dimension % aval.ndim
    n = _approx_ae(aval, k=k, reduction_dimension=reduction_dimension, is_max_k=is_max_k,
                   **params)[0].shape[dim]
    if is_max_k:
        return bind(top_k_p, x, k=n, axis=dim)
    iota = broadcasted_iota(dtypes.int32, aval.shape, dim)
    vals, idx = sort((x, iota), dimension=dim, num_keys=1)
    return [slice_in_dim(vals, 0, n, axis=dim), slice_in_dim(idx, 0, n, axis=dim)]


def _approx_jvp(primals, tangents, **params):
    (x,), (t,) = primals, tangents
    vals, idx = bind(approx_top_k_p, x, **params)
    if is_zero(t):
        return [vals, idx], [core.Zero(_aval(vals)), core.Zero(_aval(idx))]
    axis = params["reduction_dimension"] % _aval(x).ndim
    return [vals, idx], [_take_at(t, idx, axis), core.Zero(_aval(idx))]


def _approx_batch(args, dims, *, reduction_dimension, **params):
    (x,), (d,) = args, dims
    others = [i for i in range(_aval(x).ndim) if i != d]
    outs = bind(approx_top_k_p, x, reduction_dimension=others[reduction_dimension], **params)
    return outs, [d, d]


register(approx_top_k_p, impl=_approx_impl, abstract_eval=_approx_ae,
         lowering=lowering_from(_approx_exact, multiple_results=True), jvp=_approx_jvp,
         batch=_approx_batch)


def _approx(operand, k, reduction_dimension, recall_target, is_max_k,
            reduction_input_size_override, aggregate_to_topk):
    return list(bind(approx_top_k_p, as_operand(operand), k=operator.index(k),
                     reduction_dimension=operator.index(reduction_dimension),
                     recall_target=float(recall_target), is_max_k=is_max_k,
                     reduction_input_size_override=operator.index(
                         reduction_input_size_override),
                     aggregate_to_topk=bool(aggregate_to_topk)))


def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True):
    """`lax.approx_max_k`: the `k` largest values along `reduction_dimension` and
    their int32 indices, as a list `[values, indices]`, largest first. On CPU the
    result is exact (ties: lower index first). With `aggregate_to_topk=False` it
    holds as many entries as XLA's accelerator kernel would return before its final
    aggregation (`recall_target` and `reduction_input_size_override` set that count),
    again the exact largest ones, sorted."""
    return _approx(operand, k, reduction_dimension, recall_target, True,
                   reduction_input_size_override, aggregate_to_topk)


def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True):
    """`lax.approx_min_k`: the `k` smallest values along `reduction_dimension` and
    their int32 indices, as a list `[values, indices]`, smallest first (exact on CPU,
    ties: lower index first; `aggregate_to_topk=False` as for `approx_max_k`)."""
    return _approx(operand, k, reduction_dimension, recall_target, False,
                   reduction_input_size_override, aggregate_to_topk)
