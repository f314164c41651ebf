"""Reductions and contractions: reduce_sum/max/min/prod/and/or, argmax/argmin, and
dot_general (the one contraction primitive; jnp.dot/matmul/einsum lower onto it)."""
from __future__ import annotations

import numpy as np

from .. import core, dtypes
from ..core import ShapedArray
from ..errors import DTypeError, ShapeError
from .base import ANY, INT_BOOL, NUMBER, max_value, min_value, register, reducer

reduce_sum_p = reducer("reduce_sum", np.sum, "stablehlo.add", lambda d: 0, NUMBER)
reduce_prod_p = reducer("reduce_prod", np.prod, "stablehlo.multiply", lambda d: 1, NUMBER)
reduce_max_p = reducer("reduce_max", lambda x, axis: np.max(x, axis=axis, initial=min_value(x.dtype)),
                       "stablehlo.maximum", min_value, ANY)  # initial: empty axes give the identity
reduce_min_p = reducer("reduce_min", lambda x, axis: np.min(x, axis=axis, initial=max_value(x.dtype)),
                       "stablehlo.minimum", max_value, ANY)
# bitwise on integers (JAX's meaning); identity: all ones / zero
reduce_and_p = reducer("reduce_and", np.bitwise_and.reduce, "stablehlo.and",
                       lambda d: ~np.zeros((), d), INT_BOOL)
reduce_or_p = reducer("reduce_or", np.bitwise_or.reduce, "stablehlo.or",
                      lambda d: np.zeros((), d), INT_BOOL)


class DotDims(tuple):
    """dot_general's dimension_numbers; prints as JAX does: (([1], [0]), ([], []))."""

    def __str__(self):
        (lc, rc), (lb, rb) = self
        return f"(({list(lc)}, {list(rc)}), ({list(lb)}, {list(rb)}))"


def dot_dims(contract, batch=((), ())) -> DotDims:
    (lc, rc), (lb, rb) = contract, batch
    return DotDims(((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb))))


dot_general_p = core.new_primitive("dot_general")


def _dot_ae(x, y, *, dimension_numbers, precision=None, preferred_element_type=None,
            out_sharding=None):
    (lc, rc), (lb, rb) = dimension_numbers
    if len(lc) != len(rc) or len(lb) != len(rb) or any(
            x.shape[a] != y.shape[b] for a, b in zip(lc + lb, rc + rb)):
        raise ShapeError(f"dot_general: shapes {x.shape} and {y.shape} do not match along "
                         f"contracting dimensions {list(lc)}/{list(rc)} (batch "
                         f"{list(lb)}/{list(rb)})")
    if x.dtype != y.dtype and preferred_element_type is None:
        raise DTypeError(f"dot_general needs one dtype, got {x.dtype} and {y.dtype}")
    batch = [x.shape[a] for a in lb]
    lfree = [d for i, d in enumerate(x.shape) if i not in lc and i not in lb]
    rfree = [d for i, d in enumerate(y.shape) if i not in rc and i not in rb]
    dt = preferred_element_type or x.dtype
    return ShapedArray(batch + lfree + rfree, dt, x.weak_type and y.weak_type)


def _dot_impl(x, y, *, dimension_numbers, precision=None, preferred_element_type=None,
              out_sharding=None):
    (lc, rc), (lb, rb) = dimension_numbers
    x, y = np.asarray(x), np.asarray(y)
    lfree = [i for i in range(x.ndim) if i not in lc and i not in lb]
    rfree = [i for i in range(y.ndim) if i not in rc and i not in rb]
    xt = np.transpose(x, list(lb) + lfree + list(lc))
    yt = np.transpose(y, list(rb) + list(rc) + rfree)
    nb = len(lb)
    bshape = xt.shape[:nb]
    m = int(np.prod(xt.shape[nb:nb + len(lfree)], dtype=np.int64))
    k = int(np.prod(xt.shape[nb + len(lfree):], dtype=np.int64))
    n = int(np.prod(yt.shape[nb + len(rc):], dtype=np.int64))
    acc = np.float64 if dtypes.is_float(x.dtype) else None
    r = np.matmul(xt.reshape(bshape + (m, k)).astype(acc or x.dtype),
                  yt.reshape(bshape + (k, n)).astype(acc or y.dtype))
    out = r.reshape(bshape + xt.shape[nb:nb + len(lfree)] + yt.shape[nb + len(rc):])
    return out.astype(preferred_element_type or x.dtype)


def _dot_lowering(ctx, x, y, *, dimension_numbers, precision=None,
                  preferred_element_type=None, out_sharding=None):
    (lc, rc), (lb, rb) = dimension_numbers
    a, b = ctx.avals_in
    if a.dtype != ctx.avals_out[0].dtype:
        x = ctx.op1("stablehlo.convert", [x], a.update(dtype=ctx.avals_out[0].dtype))
        y = ctx.op1("stablehlo.convert", [y], b.update(dtype=ctx.avals_out[0].dtype))
    dn = (f"#stablehlo.dot<lhs_batching_dimensions = [{', '.join(map(str, lb))}], "
          f"rhs_batching_dimensions = [{', '.join(map(str, rb))}], "
          f"lhs_contracting_dimensions = [{', '.join(map(str, lc))}], "
          f"rhs_contracting_dimensions = [{', '.join(map(str, rc))}]>")
    return ctx.op1("stablehlo.dot_general", [x, y], attrs={"dot_dimension_numbers": dn})


register(dot_general_p, impl=_dot_impl, abstract_eval=_dot_ae, lowering=_dot_lowering)
