"""`top_k`: the `k` largest entries along one axis and their int32 indices, largest
first (`lax.top_k_p`, `lax.top_k(operand, k, *, axis=-1)` as in JAX 0.10.2).

- Checks (JAX's classes): k nonnegative and at most the axis's size, an operand of
  rank >= 1, no complex values (ValueErrors; rank 0 is a TypeError).
- Lowering: JAX's -- `chlo.top_k` along the last axis, the axis swapped there and back
  by transposes when it is another one.
- JVP: the tangent gathered at the indices (a gather batched over the other axes);
  the indices have no tangent. Batching moves `axis` past the mapped axis.
- The NumPy reference sorts stably, so equal values keep the lower index first, and a
  NaN counts as larger than every number.
"""
from __future__ import annotations

import operator

import numpy as np

from .. import core, dtypes
from ..core import ShapedArray, bind
from ..errors import ArgumentValueError, ShapeError
from . import gather as ix
from .base import as_operand, is_zero, register
from .base import tangent_aval as _aval
from .structural import reshape

__all__ = ["top_k_p", "top_k"]

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


def _top_k_jvp(primals, tangents, *, k, axis):
    (x,), (t,) = primals, tangents
    vals, idx = bind(top_k_p, x, k=k, axis=axis)
    if is_zero(t):
        return [vals, idx], [core.Zero(_aval(vals)), core.Zero(_aval(idx))]
    shape = _aval(idx).shape
    others = tuple(d for d in range(len(shape)) if d != axis)
    dn = ix.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(axis,),
                                   start_index_map=(axis,), operand_batching_dims=others,
                                   start_indices_batching_dims=others)
    tv = bind(ix.gather_p, t, reshape(idx, shape + (1,)), dimension_numbers=dn,
              slice_sizes=(1,) * len(shape), indices_are_sorted=False, unique_indices=False,
              mode=ix.GatherScatterMode.PROMISE_IN_BOUNDS, fill_value=None)
    return [vals, idx], [tv, core.Zero(_aval(idx))]


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
