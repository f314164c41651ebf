"""The batching of the elementwise primitives that broadcast size-1 dimensions
(`base.binop`'s: add, mul, the comparisons, ...): JAX's `broadcast_batcher`, whose
result the primitive's own broadcasting completes."""
from __future__ import annotations

from .. import core
from .base import moveaxis
from .structural import broadcast_in_dim

__all__ = ["broadcast_batcher"]


def broadcast_batcher(p, args, dims, params):
    """JAX's `broadcast_batcher` for a primitive that broadcasts size-1 dimensions:
    operands batched alike (and rank-0 ones) are bound as they are; otherwise each
    batch dimension moves to the front, an unbatched operand gains a leading 1 and a
    batched rank-0 one trailing 1s, and the primitive broadcasts them."""
    avals = [core.get_aval(x) for x in args]
    batched = [(a.shape, d) for a, d in zip(avals, dims) if d is not None]
    if not batched:
        return core.bind(p, *args, **params), None
    shape, dim = batched[0]
    if all(a.shape == shape and d == dim for a, d in zip(avals, dims) if a.ndim):
        return core.bind(p, *args, **params), dim
    front = []
    for x, a, d in zip(args, avals, dims):
        if not a.ndim:
            front.append(x)
        elif d is None:
            front.append(broadcast_in_dim(x, (1, *a.shape), tuple(range(1, a.ndim + 1))))
        else:
            front.append(moveaxis(x, d, 0))
    nd = max(core.get_aval(x).ndim for x in front)
    out = []
    for x, d in zip(front, dims):
        a = core.get_aval(x)
        out.append(x if d is None or a.ndim == nd else broadcast_in_dim(
            x, (*a.shape, *(1,) * (nd - a.ndim)), tuple(range(a.ndim))))
    return core.bind(p, *out, **params), 0
