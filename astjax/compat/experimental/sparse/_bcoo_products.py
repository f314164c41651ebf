"""Products with a sparse result: `bcoo_multiply_sparse` (elementwise, two BCOO
arrays), `bcoo_spdot_general` (the contraction of two BCOO arrays, which
`bcoo_dot_general` and `@` dispatch here) and `bcoo_dot_general_sampled` (a dense
contraction evaluated at given BCOO indices only).

The sparse-sparse kernels compare every pair of entries (an `nse x nse` outer
comparison, as JAX's do), so the stored entries, their order and padding are JAX's."""
from __future__ import annotations

import math
import operator

import numpy as np

from astjax import lax
from astjax import numpy as jnp
from astjax.api import ShapeDtypeStruct as _ShapeDtypeStruct
from astjax.api import eval_shape as _eval_shape
from astjax.batching_api import vmap as _vmap
from astjax.errors import JAXTypeError as _JAXTypeError
from astjax.errors import JAXValueError as _JAXValueError
from astjax.errors import NotImplementedInAstjaxError as _NotImplemented

from .bcoo import (_SPARSE_SPARSE_DOT, BCOO, _compiled, _validate, bcoo_extract,
                   bcoo_sum_duplicates)
from ._bcoo_slicing import bcoo_update_layout

__all__ = ["bcoo_multiply_sparse", "bcoo_spdot_general", "bcoo_dot_general_sampled"]


def _nfold(f, n, in_axes=0):
    for _ in range(n):
        f = _vmap(f, in_axes=in_axes)
    return f


def _batch_broadcast(mats, n):
    """The buffers of each BCOO in `mats` with their first `n` batch dims broadcast to
    the largest size among all the buffers (a size-1 buffer dimension is shared)."""
    bufs = [(m.data, m.indices) for m in mats]
    sizes = [max(b.shape[i] for pair in bufs for b in pair) for i in range(n)]
    return [tuple(jnp.broadcast_to(b, tuple(sizes) + b.shape[n:]) for b in pair)
            for pair in bufs]


def _multiply_unbatched(ld, li, rd, ri, lhs_shape, rhs_shape):
    nl, nr = li.shape[0], ri.shape[0]
    dims = np.array([i for i, (a, b) in enumerate(zip(lhs_shape[:li.shape[1]],
                                                       rhs_shape[:ri.shape[1]]))
                     if a != 1 and b != 1], dtype=np.int64)
    match = (li[:, None, dims] == ri[None, :, dims]).all(-1)
    il, ir = jnp.nonzero(match, size=nl * nr, fill_value=(nl, nr))
    data = (ld.at[il].get(mode="fill", fill_value=0)
            * rd.at[ir].get(mode="fill", fill_value=0))
    indices = jnp.maximum(li.at[il].get(mode="fill", fill_value=max(lhs_shape, default=0)),
                          ri.at[ir].get(mode="fill", fill_value=max(rhs_shape, default=0)))
    return data, indices


@_compiled()
def bcoo_multiply_sparse(lhs: BCOO, rhs: BCOO) -> BCOO:
    """The elementwise product of two BCOO arrays (shapes broadcasting as `lax.mul`'s;
    JAX's `sparse.bcoo_multiply_sparse`): one entry per pair of matching entries,
    `lhs.nse * rhs.nse` of them per batch (the rest padding), no index flags."""
    _validate(lhs)
    _validate(rhs)
    if lhs.ndim != rhs.ndim:
        raise _JAXTypeError("bcoo_multiply_sparse: arrays must have same number of "
                            f"dimensions, got {lhs.shape}, {rhs.shape}")
    if lhs.n_dense != rhs.n_dense:
        raise _NotImplemented("bcoo_multiply_sparse: arrays with differing numbers of "
                              f"dense dimensions: {lhs!r}, {rhs!r}")
    shape = jnp.broadcast_shapes(lhs.shape, rhs.shape)
    nb = min(lhs.n_batch, rhs.n_batch)
    lhs, rhs = (bcoo_update_layout(m, n_batch=nb) for m in (lhs, rhs))
    (ld, li), (rd, ri) = _batch_broadcast((lhs, rhs), nb)
    kernel = _nfold(lambda *a: _multiply_unbatched(*a, lhs.shape[nb:], rhs.shape[nb:]), nb)
    return BCOO(kernel(ld, li, rd, ri), shape=shape)


def _spdot_unbatched(ld, li, rd, ri, lhs_shape, rhs_shape, lc, rc, out_nse):
    """The BCOO buffers of `dot_general` of two unbatched, dense-free BCOO arrays
    contracting sparse dims `lc` / `rc`: every pair's product where the contracted
    indices agree, then duplicates summed into `out_nse` entries."""
    lfree = [d for d in range(li.shape[-1]) if d not in lc]
    rfree = [d for d in range(ri.shape[-1]) if d not in rc]
    take = lambda x, cols: x[:, np.array(cols, dtype=np.int64)]  # noqa: E731
    lci, rci = take(li, lc), take(ri, rc)
    overlap = (lci[:, None] == rci[None, :]).all(-1)
    lvalid = (lci < jnp.asarray([lhs_shape[d] for d in lc], lci.dtype)).all(-1)
    rvalid = (rci < jnp.asarray([rhs_shape[d] for d in rc], rci.dtype)).all(-1)
    keep = overlap & lvalid[:, None] & rvalid[None, :]
    data = jnp.where(keep, ld[:, None] * rd[None, :], 0).ravel()
    nl, nr = li.shape[0], ri.shape[0]
    dtype = jnp.result_type(li.dtype, ri.dtype)
    indices = jnp.concatenate([
        jnp.broadcast_to(take(li, lfree)[:, None, :], (nl, nr, len(lfree))).astype(dtype),
        jnp.broadcast_to(take(ri, rfree)[None, :, :], (nl, nr, len(rfree))).astype(dtype)],
        -1).reshape(nl * nr, len(lfree) + len(rfree))
    out_shape = (tuple(lhs_shape[d] for d in lfree) + tuple(rhs_shape[d] for d in rfree))
    out = bcoo_sum_duplicates(BCOO((data, indices), shape=out_shape), nse=out_nse)
    return out.data, out.indices


@_compiled("dimension_numbers", "preferred_element_type")
def bcoo_spdot_general(lhs: BCOO, rhs: BCOO, *, dimension_numbers,
                       preferred_element_type=None) -> BCOO:
    """`lax.dot_general` of two BCOO arrays, as a BCOO array (JAX's
    `bcoo_dot_general` with two sparse operands): batch dimensions must be the
    operands' batch dimensions and contracted ones their sparse dimensions."""
    _validate(lhs)
    _validate(rhs)
    (lc, rc), (lb, rb) = (tuple(tuple(operator.index(d) for d in ds) for ds in pair)
                          for pair in dimension_numbers)
    out = _eval_shape(
        lambda a, b: lax.dot_general(a, b, ((lc, rc), (lb, rb)),
                                     preferred_element_type=preferred_element_type),
        _ShapeDtypeStruct(lhs.shape, lhs.dtype), _ShapeDtypeStruct(rhs.shape, rhs.dtype))
    if lhs.n_dense or rhs.n_dense:
        raise _NotImplemented("bcoo_spdot_general with dense dimensions.")
    if any(d >= lhs.n_batch for d in lb) or any(d >= rhs.n_batch for d in rb):
        raise _NotImplemented("bcoo_spdot_general: batch_dims must correspond to batch "
                              "dimensions of the sparse representation.")
    for m, c in ((lhs, lc), (rhs, rc)):
        if c and (min(c) < m.n_batch or max(c) >= m.n_batch + m.n_sparse):
            raise _NotImplemented("bcoo_spdot_general only supports contraction of sparse "
                                  "indices.")
    if rhs.n_batch > len(rb) and lhs.n_sparse > len(lc):
        raise _JAXValueError("bcoo_spdot_general: cannot have unused batch dims on rhs with "
                             "unused sparse dims on lhs.")
    out_nb = lhs.n_batch + rhs.n_batch - len(lb)
    out_nse = ((lhs.nse if lhs.n_sparse > len(lc) else 1)
               * (rhs.nse if rhs.n_sparse > len(rc) else 1))
    out_nse = min(out_nse, math.prod(out.shape[out_nb:]))

    def front(m, batch):
        # the contracted-over batch dims first, then the other batch dims, each buffer
        perm = tuple(batch) + tuple(d for d in range(m.n_batch) if d not in batch)
        data = m.data.transpose(perm + tuple(range(m.n_batch, m.data.ndim)))
        idx = m.indices.transpose(perm + (m.n_batch, m.n_batch + 1))
        full = [m.shape[d] for d in batch] + [max(data.shape[i], idx.shape[i])
                                              for i in range(len(batch), m.n_batch)]
        return tuple(jnp.broadcast_to(b, tuple(full) + b.shape[m.n_batch:]) for b in (data, idx))
    ld, li = front(lhs, lb)
    rd, ri = front(rhs, rb)
    kernel = lambda a, b, c, d: _spdot_unbatched(  # noqa: E731
        a, b, c, d, lhs.shape[lhs.n_batch:], rhs.shape[rhs.n_batch:],
        [d_ - lhs.n_batch for d_ in lc], [d_ - rhs.n_batch for d_ in rc], out_nse)
    kernel = _nfold(kernel, rhs.n_batch - len(rb), in_axes=(None, None, 0, 0))
    kernel = _nfold(kernel, lhs.n_batch - len(lb), in_axes=(0, 0, None, None))
    kernel = _nfold(kernel, len(lb))
    data, indices = kernel(ld, li, rd, ri)
    return BCOO((data.astype(out.dtype), indices.astype(lhs.indices.dtype)), shape=out.shape)


_SPARSE_SPARSE_DOT["rule"] = bcoo_spdot_general


def bcoo_dot_general_sampled(A, B, indices, *, dimension_numbers):
    """The data of `lax.dot_general(A, B)` at the BCOO `indices` only (JAX's
    `sparse.bcoo_dot_general_sampled`; 0 at padding indices)."""
    return _dot_general_sampled(jnp.asarray(A), jnp.asarray(B), jnp.asarray(indices),
                                dimension_numbers=dimension_numbers)


@_compiled("dimension_numbers")
def _dot_general_sampled(A, B, indices, *, dimension_numbers):
    (lc, rc), (lb, rb) = (tuple(tuple(operator.index(d) for d in ds) for ds in pair)
                          for pair in dimension_numbers)
    dense = lax.dot_general(A, B, ((lc, rc), (lb, rb)), precision=lax.Precision.HIGHEST)
    n_batch, n_sparse = indices.ndim - 2, indices.shape[-1]
    data = jnp.zeros(indices.shape[:-1] + dense.shape[n_batch + n_sparse:], dense.dtype)
    return bcoo_extract(BCOO((data, indices), shape=dense.shape), dense,
                        assume_unique=True).data
