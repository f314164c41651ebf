"""Contractions of a `BCOO` array with a dense one: `bcoo_dot_general` (JAX's
`sparse.bcoo_dot_general`) and the `@` operator.

The sparse kernel gathers the dense operand's slices at the stored indices, scales
them by `data` and scatter-adds them into the output: cost proportional to `nse`,
differentiable in both operands by construction. Layouts the kernel does not cover
(contracting or batching over dense dimensions of the sparse operand, batch dimensions
that are not the sparse operand's leading batch dimensions) contract the dense
equivalent, which gives the same values."""
from __future__ import annotations

import operator

from astjax import lax
from astjax import numpy as jnp
from astjax.batching_api import vmap
from astjax.errors import JAXTypeError

from .bcoo import BCOO, _validate

__all__ = ["bcoo_dot_general", "matmul"]


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


def _sparse_lhs(lhs: BCOO, rhs, contract, batch, preferred_element_type):
    """`lax.dot_general(lhs.todense(), rhs, ...)` computed from the sparse entries."""
    (lc, rc), (lb, rb) = contract, batch
    _validate(lhs)
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


def _index_tuple(dims):
    return tuple(operator.index(d) for d in dims)


def bcoo_dot_general(lhs, rhs, *, dimension_numbers, precision=None,
                     preferred_element_type=None, out_sharding=None):
    """`lax.dot_general` with one operand a `BCOO` array; the result is dense (JAX's
    `sparse.bcoo_dot_general`; `precision` and `out_sharding` are unused, as there)."""
    del precision, out_sharding
    (lc, rc), (lb, rb) = dimension_numbers
    lc, rc, lb, rb = map(_index_tuple, (lc, rc, lb, rb))
    if isinstance(lhs, BCOO) and isinstance(rhs, BCOO):
        raise JAXTypeError("bcoo_dot_general of two BCOO arrays (a sparse result) is not "
                           "provided by astjax; densify one operand with `.todense()`")
    if isinstance(lhs, BCOO):
        return _sparse_lhs(lhs, jnp.asarray(rhs), (lc, rc), (lb, rb), preferred_element_type)
    if isinstance(rhs, BCOO):
        lhs = jnp.asarray(lhs)
        out = _sparse_lhs(rhs, lhs, (rc, lc), (rb, lb), preferred_element_type)
        # swapped operands give (batch, rhs free, lhs free): put lhs's free dims first
        n_b = len(lb)
        n_rfree = rhs.ndim - len(rc) - len(rb)
        n_lfree = lhs.ndim - len(lc) - len(lb)
        perm = (tuple(range(n_b)) + tuple(range(n_b + n_rfree, n_b + n_rfree + n_lfree))
                + tuple(range(n_b, n_b + n_rfree)))
        return out.transpose(perm)
    return lax.dot_general(lhs, rhs, ((lc, rc), (lb, rb)),
                           preferred_element_type=preferred_element_type)


def matmul(a, b):
    """`a @ b` with `a` or `b` a BCOO array (jnp.matmul's broadcasting), dense result."""
    if isinstance(a, BCOO) and isinstance(b, BCOO):
        raise JAXTypeError("BCOO @ BCOO (a sparse result) is not provided by astjax; "
                           "densify one operand with `.todense()`")
    sparse_left = isinstance(a, BCOO)
    sp, dense = (a, jnp.asarray(b)) if sparse_left else (b, jnp.asarray(a))
    if sp.ndim == 0 or dense.ndim == 0:
        raise JAXTypeError("matmul: operands must have at least one dimension; got "
                           f"shapes {a.shape} and {b.shape}")
    if sp.ndim > 2 or sp.n_batch:
        if (sp.ndim == dense.ndim and sp.n_batch == sp.ndim - 2
                and sp.shape[:-2] == dense.shape[:-2]):
            batch = tuple(range(sp.ndim - 2))
            if sparse_left:
                dn = ((sp.ndim - 1,), (dense.ndim - 2,)), (batch, batch)
                return bcoo_dot_general(sp, dense, dimension_numbers=dn)
            dn = ((dense.ndim - 1,), (sp.ndim - 2,)), (batch, batch)
            return bcoo_dot_general(dense, sp, dimension_numbers=dn)
        return jnp.matmul(a.todense() if sparse_left else a, b if sparse_left else b.todense())
    if sparse_left:
        # (m, n) @ (..., n, k): contract, then move m next to k, as matmul lays it out
        c = dense.ndim - 2 if dense.ndim >= 2 else 0
        out = bcoo_dot_general(sp, dense, dimension_numbers=(((sp.ndim - 1,), (c,)), ((), ())))
        return jnp.moveaxis(out, 0, -2) if sp.ndim == 2 and dense.ndim > 2 else out
    # (..., m, n) @ (n, k) or (n,)
    out = bcoo_dot_general(dense, sp, dimension_numbers=(((dense.ndim - 1,), (0,)), ((), ())))
    return out
