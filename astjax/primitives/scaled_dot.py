"""`scaled_dot`: the block-scaled product `lax.scaled_dot` (JAX 0.10.2), `(lhs * lhs_scale)
@ (rhs * rhs_scale)` as `dot_general` contracts it, each scale repeated over its block of
the contracting dimensions.

- Shapes (JAX's rules, each a TypeError): every operand and scale has one rank; batch
  and contracting sizes agree; a scale has its operand's size on every other dimension,
  and on a contracting one a size dividing the operand's into blocks of at least 2.
- A missing scale is ones of size 1 along the contracting dimensions (`float8_e8m0fnu`).
- The product: operands and scales converted to bfloat16, multiplied, and contracted
  into `preferred_element_type` (default bfloat16). The lowering is JAX's: a
  `stablehlo.composite "xla.scaled_dot"` whose decomposition is that computation, so a
  backend with a native kernel may substitute it; CPU runs the decomposition.
- As in JAX, no derivative (the differentiation error names `scaled_dot`); batching
  moves the mapped axes to the front and adds one batch dimension.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from .. import core, dtypes
from ..core import ShapedArray, bind
from ..errors import DerivativeNotImplementedError, ShapeError
from .base import bdim_at_front, register, lowering_from
from .composite import composite
from .elementwise import mul
from .reductions import dot_general
from .structural import broadcast_in_dim, convert_element_type, reshape

__all__ = ["scaled_dot_p", "scaled_dot"]

scaled_dot_p = core.new_primitive("scaled_dot")


def _check_scale(side, operand, scale, contracting):
    for i, size in enumerate(operand.shape):
        if i in contracting:
            if size % scale.shape[i]:
                raise ShapeError(f"{side} contracting dim {i} of size {size} must be divisible "
                                 f"by its scale's dim size {scale.shape[i]}.")
            if size // scale.shape[i] < 2:
                raise ShapeError(f"The ratio of {side} contracting dim {i} to its scale's dim "
                                 f"size ({size // scale.shape[i]}) must be at least 2.")
        elif scale.shape[i] != size:
            raise ShapeError(f"{side} dim {i} of size {size} does not match scale dim size "
                             f"{scale.shape[i]}.")


def _scaled_dot_ae(lhs, rhs, lhs_scale, rhs_scale, *, dimension_numbers,
                   preferred_element_type):
    (lc, rc), (lb, rb) = dimension_numbers
    if len({lhs.ndim, rhs.ndim, lhs_scale.ndim, rhs_scale.ndim}) != 1:
        raise ShapeError(f"All input tensors must have the same rank. Got lhs rank: {lhs.ndim} "
                         f"rhs rank: {rhs.ndim} lhs_scale rank: {lhs_scale.ndim} rhs_scale "
                         f"rank: {rhs_scale.ndim}.")
    if len(lb) != len(rb):
        raise ShapeError("LHS and RHS must have the same number of batch dimensions, got "
                         f"{len(lb)} and {len(rb)}.")
    if len(lc) != len(rc):
        raise ShapeError("LHS and RHS must have the same number of contracting dimensions, "
                         f"got {len(lc)} and {len(rc)}.")
    for i, j in zip(lb, rb):
        if len({lhs.shape[i], rhs.shape[j], lhs_scale.shape[i], rhs_scale.shape[j]}) != 1:
            raise ShapeError("All input tensors must have the same batch dimension size for "
                             f"batch dims ({i}, {j}).")
    for i, j in zip(lc, rc):
        if lhs.shape[i] != rhs.shape[j]:
            raise ShapeError(f"LHS contracting dim {i} of size {lhs.shape[i]} does not match "
                             f"RHS contracting dim {j} of size {rhs.shape[j]}.")
    _check_scale("LHS", lhs, lhs_scale, lc)
    _check_scale("RHS", rhs, rhs_scale, rc)
    lkept = [d for i, d in enumerate(lhs.shape) if i not in lc and i not in lb]
    rkept = [d for i, d in enumerate(rhs.shape) if i not in rc and i not in rb]
    return ShapedArray([lhs.shape[i] for i in lb] + lkept + rkept, preferred_element_type)


def _repeat_blocks(scale, shape, contracting):
    """`scale` repeated over its blocks so that it has the operand's `shape`."""
    for i in contracting:
        s = core.get_aval(scale).shape
        if s[i] != shape[i]:
            block = shape[i] // s[i]
            wide = (*s[:i + 1], block, *s[i + 1:])
            scale = broadcast_in_dim(scale, wide, tuple(d for d in range(len(wide))
                                                        if d != i + 1))
            scale = reshape(scale, (*s[:i], shape[i], *s[i + 1:]))
    return scale


def _decomposition(lhs, rhs, lhs_scale, rhs_scale, *, dimension_numbers,
                   preferred_element_type):
    (lc, rc), _ = dimension_numbers
    bf16 = dtypes.bfloat16

    def scaled(x, s, contracting):
        s = _repeat_blocks(s, core.get_aval(x).shape, contracting)
        return mul(convert_element_type(x, bf16), convert_element_type(s, bf16))
    return dot_general(scaled(lhs, lhs_scale, lc), scaled(rhs, rhs_scale, rc),
                       dimension_numbers, preferred_element_type=preferred_element_type)


def _scaled_dot_impl(lhs, rhs, lhs_scale, rhs_scale, *, dimension_numbers,
                     preferred_element_type):
    (lc, rc), (lb, rb) = dimension_numbers
    bf16 = dtypes.bfloat16

    def scaled(x, s, contracting):
        x, s = np.asarray(x), np.asarray(s)
        for i in contracting:
            s = np.repeat(s, x.shape[i] // s.shape[i], axis=i)
        return (x.astype(bf16) * s.astype(bf16)).astype(np.float64)
    x, y = scaled(lhs, lhs_scale, lc), scaled(rhs, rhs_scale, rc)
    # einsum labels: the rhs's contracting and batch axes take their lhs partners' labels
    rlabel = {j: i for i, j in zip((*lc, *lb), (*rc, *rb))}
    ry = [rlabel.get(i, x.ndim + i) for i in range(y.ndim)]
    lfree = [i for i in range(x.ndim) if i not in lc and i not in lb]
    rfree = [x.ndim + i for i in range(y.ndim) if i not in rc and i not in rb]
    out = np.einsum(x, list(range(x.ndim)), y, ry, [*lb, *lfree, *rfree])
    return out.astype(preferred_element_type)


def _scaled_dot_lowering_fn(lhs, rhs, lhs_scale, rhs_scale, *, dimension_numbers,
                            preferred_element_type):
    op = composite(_decomposition, "xla.scaled_dot")
    return op(lhs, rhs, lhs_scale, rhs_scale, dimension_numbers=dimension_numbers,
              preferred_element_type=np.dtype(preferred_element_type))


def _scaled_dot_jvp(primals, tangents, **params):
    raise DerivativeNotImplementedError("Differentiation rule for 'scaled_dot' not implemented",
                                        hint="JAX has none either: differentiate "
                                             "jax.nn.scaled_dot_general, which has a custom VJP")


def _scaled_dot_batch(args, dims, *, dimension_numbers, preferred_element_type):
    size = next(core.get_aval(x).shape[d] for x, d in zip(args, dims) if d is not None)
    args = [bdim_at_front(x, d, size) for x, d in zip(args, dims)]
    (lc, rc), (lb, rb) = dimension_numbers
    up = lambda ds: tuple(d + 1 for d in ds)  # noqa: E731
    dn = ((up(lc), up(rc)), ((0, *up(lb)), (0, *up(rb))))
    return bind(scaled_dot_p, *args, dimension_numbers=dn,
                preferred_element_type=preferred_element_type), 0


register(scaled_dot_p, impl=_scaled_dot_impl, abstract_eval=_scaled_dot_ae,
         lowering=lowering_from(_scaled_dot_lowering_fn), jvp=_scaled_dot_jvp,
         batch=_scaled_dot_batch)


def _unit_scale(operand, contracting):
    shape = [1 if i in contracting else d for i, d in enumerate(core.get_aval(operand).shape)]
    return np.ones(shape, ml_dtypes.float8_e8m0fnu)


def scaled_dot(lhs, rhs, *, lhs_scale=None, rhs_scale=None, dimension_numbers=None,
               preferred_element_type=None):
    """`lax.scaled_dot`: `(lhs * lhs_scale) @ (rhs * rhs_scale)` contracted by
    `dimension_numbers` (default: the last lhs axis with the second-to-last rhs axis,
    the leading axes as batch), each scale repeated over its block of a contracting
    dimension, computed in bfloat16 into `preferred_element_type` (default bfloat16).
    Not differentiable (as in JAX)."""
    if dimension_numbers is None:
        n = core.get_aval(lhs).ndim
        if n < 2:
            raise ShapeError("scaled_dot does not support 0-rank and 1-rank operands.")
        dimension_numbers = (((n - 1,), (n - 2,)), (tuple(range(n - 2)), tuple(range(n - 2))))
    (lc, rc), (lb, rb) = dimension_numbers
    dn = ((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb)))
    lhs_scale = _unit_scale(lhs, dn[0][0]) if lhs_scale is None else lhs_scale
    rhs_scale = _unit_scale(rhs, dn[0][1]) if rhs_scale is None else rhs_scale
    out = dtypes.canonicalize(dtypes.bfloat16 if preferred_element_type is None
                              else preferred_element_type)
    return bind(scaled_dot_p, lhs, rhs, lhs_scale, rhs_scale, dimension_numbers=dn,
                preferred_element_type=np.dtype(out))
