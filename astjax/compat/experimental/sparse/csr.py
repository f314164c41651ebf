"""`jax.experimental.sparse.csr`: the un-batched 2-D compressed formats `CSR` (`data`,
column `indices`, row pointers `indptr`) and `CSC` (the buffers of the CSR
transpose), their conversions to and from dense matrices and their products with a
dense vector (`csr_matvec`) or matrix (`csr_matmat`), computed on the equivalent
COO entries (`coo`'s kernels). As JAX's: `fromdense` pads past the last row pointer;
the buffers are not validated; the operators other than `@` raise JAX's
`NotImplementedError`."""
from __future__ import annotations

import operator

import numpy as np

from astjax import numpy as jnp
from astjax.pytree_registry import register_pytree_node_class as _register_pytree_node_class

from .bcoo import _compiled
from .bcsr import _refused
from .coo import _check, _coo_product, _fromdense, _nse_of, _todense, _Unbatched
from .util import _SparseAssertionError

__all__ = ["CSR", "CSC", "csr_fromdense", "csr_todense", "csr_matvec", "csr_matmat"]


def _csr_to_coo(indices, indptr):
    """(row, col) of CSR buffers: an entry's row is the number of row starts at or
    before it, minus one (past the last pointer: the number of rows)."""
    starts = jnp.zeros_like(indices).at[indptr].add(1)
    return jnp.cumsum(starts) - 1, indices


@_register_pytree_node_class
class CSR(_Unbatched):
    """A 2-D sparse matrix in compressed-row format: `CSR((data, indices, indptr),
    shape=...)` (JAX's `jax.experimental.sparse.CSR`)."""
    _buffers = ("data", "indices", "indptr")

    def __init__(self, args, *, shape):
        self.data, self.indices, self.indptr = (jnp.asarray(a) for a in args)
        self.shape = tuple(operator.index(d) for d in shape)

    @classmethod
    def fromdense(cls, mat, *, nse=None, index_dtype=np.int32) -> CSR:
        """The CSR matrix of the nonzeros of dense `mat` (see `csr_fromdense`)."""
        return csr_fromdense(mat, nse=nse, index_dtype=index_dtype)

    def todense(self):
        """The dense matrix (duplicates summed)."""
        return csr_todense(self)

    def transpose(self, axes=None) -> CSC:
        """The transpose: a CSC matrix of the same buffers."""
        if axes is not None:
            raise _SparseAssertionError("CSR.transpose takes no axes")
        return CSC((self.data, self.indices, self.indptr), shape=self.shape[::-1])

    def _product(self, data, other, what):
        row, col = _csr_to_coo(self.indices, self.indptr)
        return _coo_product(data, row, col, other, shape=self.shape, transpose=False, what=what)


@_register_pytree_node_class
class CSC(_Unbatched):
    """A 2-D sparse matrix in compressed-column format: the buffers of the CSR
    transpose (JAX's `jax.experimental.sparse.CSC`)."""
    _buffers = ("data", "indices", "indptr")

    def __init__(self, args, *, shape):
        self.data, self.indices, self.indptr = (jnp.asarray(a) for a in args)
        self.shape = tuple(operator.index(d) for d in shape)

    @classmethod
    def fromdense(cls, mat, *, nse=None, index_dtype=np.int32) -> CSC:
        """The CSC matrix of the nonzeros of dense `mat` (column-major order)."""
        return csr_fromdense(jnp.asarray(mat).T, nse=nse, index_dtype=index_dtype).T

    def todense(self):
        """The dense matrix (duplicates summed)."""
        return csr_todense(self.T).T

    def transpose(self, axes=None) -> CSR:
        """The transpose: a CSR matrix of the same buffers."""
        if axes is not None:
            raise _SparseAssertionError("CSC.transpose takes no axes")
        return CSR((self.data, self.indices, self.indptr), shape=self.shape[::-1])

    def _product(self, data, other, what):
        row, col = _csr_to_coo(self.indices, self.indptr)
        return _coo_product(data, row, col, other, shape=self.shape[::-1], transpose=True,
                            what=what)


# JAX's CSR / CSC have `@` only of the array operators
for _cls in (CSR, CSC):
    for _name in ("sum", "__neg__", "__pos__", "__mul__", "__rmul__", "__add__", "__radd__",
                  "__sub__", "__rsub__", "__getitem__", "__rmatmul__"):
        setattr(_cls, _name, _refused(_name))


def csr_fromdense(mat, *, nse=None, index_dtype=np.int32) -> CSR:
    """The CSR matrix of the first `nse` nonzeros of 2-D `mat` (JAX's
    `sparse.csr_fromdense`)."""
    mat, nse = _nse_of(mat, nse)
    return CSR(_csr_buffers(mat, nse=nse, index_dtype=np.dtype(index_dtype)), shape=mat.shape)


@_compiled("nse", "index_dtype")
def _csr_buffers(mat, *, nse, index_dtype):
    data, row, col, real = _fromdense(mat, nse=nse, index_dtype=index_dtype)
    m = mat.shape[0]
    row = jnp.where(real, row, m)
    counts = jnp.bincount(row, length=m).astype(index_dtype)
    indptr = jnp.zeros(m + 1, index_dtype).at[1:].set(jnp.cumsum(counts).astype(index_dtype))
    return data, col, indptr


def csr_todense(mat: CSR):
    """The dense matrix of a CSR matrix (JAX's `sparse.csr_todense`)."""
    row, col = _csr_to_coo(mat.indices, mat.indptr)
    return _todense(mat.data, row, col, shape=mat.shape)


def csr_matvec(mat: CSR, v, transpose: bool = False):
    """`mat @ v` (`mat.T @ v` with `transpose`) for a 1-D `v` of `mat`'s dtype (JAX's
    `sparse.csr_matvec`)."""
    _check(mat.indices.dtype == mat.indptr.dtype and mat.indptr.shape[0] == mat.shape[0] + 1,
           "CSR buffers")
    row, col = _csr_to_coo(mat.indices, mat.indptr)
    return _coo_product(mat.data, row, col, jnp.asarray(v), shape=mat.shape,
                        transpose=bool(transpose), what="matvec")


def csr_matmat(mat: CSR, B, *, transpose: bool = False):
    """`mat @ B` (`mat.T @ B` with `transpose`) for a 2-D `B` of `mat`'s dtype (JAX's
    `sparse.csr_matmat`)."""
    _check(mat.indices.dtype == mat.indptr.dtype and mat.indptr.shape[0] == mat.shape[0] + 1,
           "CSR buffers")
    row, col = _csr_to_coo(mat.indices, mat.indptr)
    return _coo_product(mat.data, row, col, jnp.asarray(B), shape=mat.shape,
                        transpose=bool(transpose), what="matmat")
