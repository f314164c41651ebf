"""`jax.experimental.sparse.bcsr`: the batched-CSR sparse array `BCSR` -- two sparse
dimensions stored as `data` `(*batch, nse, *dense)`, column `indices` `(*batch, nse)`
and row pointers `indptr` `(*batch, rows + 1)` -- with its conversions to and from
dense arrays and `BCOO`, and its contraction with dense arrays (computed on the
equivalent BCOO: the same values, differentiable in `data`). Entries at positions past
`indptr[-1]` are padding (column index = the number of columns)."""
from __future__ import annotations

import operator

import numpy as np

from astjax import numpy as jnp
from astjax.batching_api import vmap as _vmap
from astjax.errors import JAXValueError as _JAXValueError
from astjax.errors import NotImplementedInAstjaxError as _NotImplemented
from astjax.pytree_registry import register_pytree_node_class as _register_pytree_node_class

from .bcoo import BCOO as _BCOO
from .bcoo import JAXSparse
from .bcoo import _compiled, _register_batch_vmappable
from .bcoo import bcoo_dot_general as _bcoo_dot_general
from .bcoo import bcoo_fromdense as _bcoo_fromdense

__all__ = ["BCSR", "bcsr_fromdense", "bcsr_todense", "bcsr_dot_general"]


def _compatible(batch, shape):
    return all(s in (1, t) for s, t in zip(batch, shape))


def _props(data, indices, indptr, shape):
    """(n_batch, n_dense, nse) of BCSR buffers for `shape`, or JAX's ValueError."""
    for name, buf in (("indices", indices), ("indptr", indptr)):
        if not jnp.issubdtype(buf.dtype, jnp.integer) or buf.ndim < 1:
            raise _JAXValueError(f"BCSR {name} must be an integer array of rank >= 1; "
                                 f"got {buf.dtype}{list(buf.shape)}")
    nse, n_batch = indices.shape[-1], indices.ndim - 1
    n_dense = len(shape) - n_batch - 2
    if n_dense < 0:
        raise _JAXValueError("BCSR array must have 2 sparse dimensions; "
                             f"{len(shape) - n_batch} is given.")
    for name, buf in (("indices", indices), ("indptr", indptr), ("data", data)):
        if not _compatible(buf.shape[:n_batch], shape[:n_batch]):
            raise _JAXValueError(f"{name} batch dimensions not compatible for "
                                 f"{name}.shape={buf.shape}, {shape=}")
    if indptr.shape[n_batch:] != (shape[n_batch] + 1,):
        raise _JAXValueError("indptr shape must match the matrix shape plus 1.")
    if data.shape[n_batch:] != (nse,) + tuple(shape[n_batch + 2:]):
        raise _JAXValueError(f"Invalid data.shape={data.shape} for {nse=}, {n_batch=}, "
                             f"{n_dense=}")
    return n_batch, n_dense, nse


@_register_pytree_node_class
class BCSR(JAXSparse):
    """A batched-CSR sparse matrix: `BCSR((data, indices, indptr), shape=...)` (JAX's
    `jax.experimental.sparse.BCSR`)."""
    _buffers = ("data", "indices", "indptr")

    def __init__(self, args, *, shape, indices_sorted: bool = False,
                 unique_indices: bool = False):
        self.data, self.indices, self.indptr = (jnp.asarray(a) for a in args)
        self.shape = tuple(operator.index(d) for d in shape)
        self.indices_sorted = indices_sorted
        self.unique_indices = unique_indices
        _props(self.data, self.indices, self.indptr, self.shape)

    @property
    def nse(self) -> int:
        """The number of specified elements (per batch)."""
        return self.indices.shape[-1]

    @property
    def n_batch(self) -> int:
        """The number of leading batch dimensions."""
        return self.indices.ndim - 1

    @property
    def n_sparse(self) -> int:
        """The number of sparse dimensions (always 2)."""
        return 2

    @property
    def n_dense(self) -> int:
        """The number of trailing dense dimensions."""
        return self.data.ndim - self.indices.ndim

    @classmethod
    def fromdense(cls, mat, *, nse=None, index_dtype=np.int32, n_dense: int = 0,
                  n_batch: int = 0) -> BCSR:
        """The BCSR array holding the nonzeros of dense `mat` (see `bcsr_fromdense`)."""
        return bcsr_fromdense(mat, nse=nse, index_dtype=index_dtype, n_dense=n_dense,
                              n_batch=n_batch)

    @classmethod
    def from_bcoo(cls, arr: _BCOO) -> BCSR:
        """The BCSR array of a BCOO array with two sparse dimensions (sorted first
        unless marked sorted)."""
        if arr.n_sparse != 2:
            raise _NotImplemented(f"BSCR.from_bcoo requires n_sparse=2; got {arr.n_sparse=}")
        if not arr.indices_sorted:
            arr = arr.sort_indices()
        return _of_sorted_bcoo(arr)

    @classmethod
    def from_scipy_sparse(cls, mat, *, index_dtype=None, n_dense: int = 0,
                          n_batch: int = 0) -> BCSR:
        """The BCSR array of a 2-D `scipy.sparse` matrix (its CSR buffers)."""
        if n_dense or n_batch:
            raise _NotImplemented("BCSR from_scipy_sparse with nonzero n_dense/n_batch.")
        if mat.ndim != 2:
            raise _JAXValueError(f"BCSR from_scipy_sparse requires 2D array; {mat.ndim}D is given.")
        mat = mat.tocsr()
        dtype = index_dtype or np.int32
        return cls((jnp.asarray(mat.data), jnp.asarray(mat.indices.astype(dtype)),
                    jnp.asarray(mat.indptr.astype(dtype))), shape=mat.shape)

    def to_bcoo(self) -> _BCOO:
        """The equivalent BCOO array (row indices recovered from `indptr`; padding at
        row = the number of rows)."""
        return _to_bcoo(self)

    def todense(self):
        """The dense array (duplicates summed, padding dropped)."""
        return bcsr_todense(self)

    def sum_duplicates(self, nse=None, remove_zeros: bool = True) -> BCSR:
        """A copy with duplicate indices summed, sorted, and (by default) explicit zeros
        removed; `nse` fixes the output size (required under `jit`)."""
        return BCSR.from_bcoo(self.to_bcoo().sum_duplicates(nse=nse,
                                                            remove_zeros=remove_zeros))

    def transpose(self, *args, **kwargs):
        """Not provided, as in JAX (a BCSR transpose is a BCSC matrix)."""
        raise _NotImplemented("Transpose is not implemented.")

    def __matmul__(self, other):
        if isinstance(other, JAXSparse):
            raise _NotImplemented("bcsr_dot_general currently implemented for BCSR lhs "
                                  "and ndarray rhs.")
        return self.to_bcoo() @ other

    def __rmatmul__(self, other):
        raise _NotImplemented("bcsr_dot_general currently implemented for BCSR lhs and "
                              "ndarray rhs.")


@_compiled()
def _of_sorted_bcoo(arr):
    """The BCSR array of a BCOO array with sorted indices and two sparse dimensions."""
    batch = arr.shape[:arr.n_batch]
    indices = jnp.broadcast_to(arr.indices, batch + arr.indices.shape[arr.n_batch:])
    return BCSR((arr.data, indices[..., 1], _indptr(indices[..., 0], arr.shape[arr.n_batch])),
                shape=arr.shape)


@_compiled()
def _to_bcoo(mat):
    """`mat.to_bcoo()`."""
    batch = mat.shape[:mat.n_batch]
    indices = jnp.broadcast_to(mat.indices, batch + mat.indices.shape[mat.n_batch:])
    indptr = jnp.broadcast_to(mat.indptr, batch + mat.indptr.shape[mat.n_batch:])
    rows = _rows
    for _ in range(mat.n_batch):
        rows = _vmap(rows)
    return _BCOO((mat.data, jnp.stack([rows(indices, indptr), indices], -1)), shape=mat.shape)


def _rows(indices, indptr):
    """Each entry's row: how many row starts are at or before it, minus one."""
    starts = jnp.zeros(indices.shape, indptr.dtype).at[indptr].add(1, mode="drop")
    return (jnp.cumsum(starts) - 1).astype(indices.dtype)


def _indptr(rows, n_rows):
    """Row pointers of sorted row indices `(*batch, nse)` (out-of-range rows dropped)."""
    def one(r):
        counts = jnp.zeros(n_rows, r.dtype).at[r].add(1, mode="drop")
        return jnp.concatenate([jnp.zeros(1, r.dtype), jnp.cumsum(counts).astype(r.dtype)])
    for _ in range(rows.ndim - 1):
        one = _vmap(one)
    return one(rows)


def bcsr_fromdense(mat, *, nse=None, n_batch: int = 0, n_dense: int = 0,
                   index_dtype=np.int32) -> BCSR:
    """The BCSR array of the nonzeros of `mat` in row-major order (JAX's
    `sparse.bcsr_fromdense`; `nse` as for `bcoo_fromdense`)."""
    mat = jnp.asarray(mat)
    if mat.ndim - n_batch - n_dense != 2:
        raise _JAXValueError("bcsr_fromdense: must have 2 sparse dimensions.")
    return BCSR.from_bcoo(_bcoo_fromdense(mat, nse=nse, n_batch=n_batch, n_dense=n_dense,
                                          index_dtype=index_dtype))


def bcsr_todense(mat: BCSR):
    """The dense array of `mat` (JAX's `sparse.bcsr_todense`)."""
    return _to_bcoo(mat).todense()


def bcsr_dot_general(lhs, rhs, *, dimension_numbers, precision=None,
                     preferred_element_type=None, out_sharding=None):
    """`lax.dot_general` of a BCSR `lhs` with a dense `rhs`; the result is dense (JAX's
    `sparse.bcsr_dot_general`, which takes no other operand kinds)."""
    if isinstance(rhs, JAXSparse) or not isinstance(lhs, BCSR):
        if not isinstance(lhs, JAXSparse) and not isinstance(rhs, JAXSparse):
            return _bcoo_dot_general(lhs, rhs, dimension_numbers=dimension_numbers,
                                     preferred_element_type=preferred_element_type)
        raise _NotImplemented("bcsr_dot_general currently implemented for BCSR lhs and "
                              "ndarray rhs.")
    return _bcoo_dot_general(lhs.to_bcoo(), rhs, dimension_numbers=dimension_numbers,
                             precision=precision,
                             preferred_element_type=preferred_element_type,
                             out_sharding=out_sharding)


def _refused(name):
    def method(self, *args, **kwargs):
        raise _NotImplemented(f"{type(self)}.{name}")
    method.__name__ = name
    method.__doc__ = "Not provided for BCSR: JAX's NotImplementedError."
    return method


# JAX's BCSR has only `@` and indexing of the array operators (see `_methods`)
for _name in ("sum", "__neg__", "__pos__", "__mul__", "__rmul__", "__add__", "__radd__",
              "__sub__", "__rsub__"):
    setattr(BCSR, _name, _refused(_name))

_register_batch_vmappable(BCSR, "a batched dimension", keep_flags=False)   # (JAX's words)
