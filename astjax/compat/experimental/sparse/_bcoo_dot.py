"""The kernel of a `BCOO` array's contraction with a dense one (`bcoo_dot_general`
and `@` in `bcoo.py` dispatch here).

It gathers the dense operand's slices at the stored indices, scales
them by `data` and scatter-adds them into the output: cost proportional to `nse`,
differentiable in both operands by construction. Layouts the kernel does not cover
(contracting or batching over dense dimensions of the sparse operand, batch dimensions
that are not the sparse operand's leading batch dimensions) contract the dense
equivalent, which gives the same values."""
from __future__ import annotations

from astjax import lax
from astjax import numpy as jnp
from astjax.batching_api import vmap

__all__ = ["sparse_lhs"]


def _unbatched_kernel(data, indices, rhs, lhs_shape, lhs_contract, rhs_contract):
    """`dot_general` of an unbatched, dense-dimension-free BCOO `(data, indices)` of
    `lhs_shape` with dense `rhs` (no batch dimensions)."""
    rhs_free = [d for d in range(rhs.ndim) if d not in rhs_contract]
    rhs_t = rhs.transpose(tuple(rhs_contract) + tuple(rhs_free))
    cols = tuple(indices[:, c] for c in lhs_contract)
    slices = rhs_t.at[cols].get(mode="fill", fill_value=0) if cols else jnp.broadcast_to(
        rhs_t, (data.shape[0],) + rhs_t.shape)
    prod = data.reshape(data.shape + (1,) * len(rhs_free)) * slices
    lhs_free = [d for d in range(len(lhs_shape)) if d not in lhs_contract]
    if not lhs_free:
        # padding entries are out of range in some contracted column: fill gave 0
        return prod.sum(0)
    out = jnp.zeros(tuple(lhs_shape[d] for d in lhs_free) + rhs_t.shape[len(cols):],
                    prod.dtype)
    return out.at[tuple(indices[:, d] for d in lhs_free)].add(prod, mode="drop")


def sparse_lhs(lhs, rhs, contract, batch, preferred_element_type):
    """`lax.dot_general(lhs.todense(), rhs, ...)` computed from the entries of the
    (validated) BCOO `lhs`."""
    (lc, rc), (lb, rb) = contract, batch
    nb = lhs.n_batch
    dtype = jnp.result_type(lhs.dtype, rhs.dtype)
    if lhs.n_dense or tuple(lb) != tuple(range(nb)) or any(c < nb for c in lc):
        out = lax.dot_general(lhs.todense().astype(dtype), rhs.astype(dtype),
                              ((lc, rc), (lb, rb)))
    else:
        lhs_shape = lhs.shape[nb:]
        lc_s = [c - nb for c in lc]
        rc_free = [d for d in range(rhs.ndim) if d not in rb]
        # the contracting dims renumbered once rhs's batch dims are mapped away
        rc_s = [rc_free.index(c) for c in rc]
        rhs_b = rhs.transpose(tuple(rb) + tuple(rc_free)).astype(dtype)
        batch = lhs.shape[:nb]
        data = jnp.broadcast_to(lhs.data, batch + lhs.data.shape[nb:]).astype(dtype)
        indices = jnp.broadcast_to(lhs.indices, batch + lhs.indices.shape[nb:])

        def kernel(d, i, r):
            return _unbatched_kernel(d, i, r, lhs_shape, lc_s, rc_s)
        for _ in range(nb):
            kernel = vmap(kernel)
        out = kernel(data, indices, rhs_b)
    return out if preferred_element_type is None else out.astype(preferred_element_type)
