"""`jax.experimental.sparse.coo`: the un-batched 2-D coordinate format `COO` (`data`,
`row`, `col`; the base of `csr`'s formats too), its conversions to and from dense
matrices and its products with a dense vector (`coo_matvec`) or matrix
(`coo_matmat`), optionally with the sparse matrix transposed.

As JAX's: `fromdense` stores the first `nse` nonzeros in row-major order (default
`nse`: their count, which needs a concrete matrix), padding with zero data at
row 0 / column 0 (COO) or past the last row pointer (CSR); the buffers are not
validated; `@` promotes the dense operand and the data to one dtype, while the
`*_matvec` / `*_matmat` functions take operands of the data's dtype only (an
`AssertionError` otherwise, as JAX's abstract evaluation). Each operation is
written with jnp, so `jit` and `grad` through `data` and the dense operand work;
the arithmetic operators other than `@` raise JAX's `NotImplementedError`."""
from __future__ import annotations

import operator

import numpy as np

from astjax import numpy as jnp
from astjax.errors import JAXValueError as _JAXValueError
from astjax.errors import NotImplementedInAstjaxError as _NotImplemented
from astjax.pytree_registry import register_pytree_node_class as _register_pytree_node_class

from .bcoo import JAXSparse, _compiled
from .bcsr import _refused
from .util import _SparseAssertionError

__all__ = ["COO", "coo_fromdense", "coo_todense", "coo_matvec", "coo_matmat"]


def _check(cond, what):
    if not cond:
        raise _SparseAssertionError(f"{what}: operands of unexpected shapes or dtypes",
                                   hint="the dense operand must have the sparse data's "
                                        "dtype (`@` promotes both)")


class _Unbatched(JAXSparse):
    """The shared part of `COO`, `CSR` and `CSC`: `nse` is `data.size`, the pytree
    children are the three buffers, `@` a dense vector or matrix."""
    _buffers: tuple = ()

    @property
    def nse(self) -> int:
        """The number of stored entries."""
        return self.data.size

    def __repr__(self):
        return f"{type(self).__name__}({self.dtype}{list(self.shape)}, nse={self.nse})"

    def _aux(self) -> dict:
        return {"shape": self.shape}

    def tree_flatten(self):
        """Children the three buffers; aux the shape (and COO's sortedness flags)."""
        return tuple(getattr(self, b) for b in self._buffers), self._aux()

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        """Rebuild from `tree_flatten`'s output (no validation, as JAX's)."""
        obj = object.__new__(cls)
        obj.__dict__.update(zip(cls._buffers, children))
        if aux_data.keys() != cls._aux_keys:
            raise _JAXValueError(f"{cls.__name__}.tree_unflatten: invalid {aux_data=}")
        obj.shape = aux_data["shape"]
        for k in aux_data.keys() - {"shape"}:
            setattr(obj, "_" + k, aux_data[k])
        return obj

    _aux_keys = frozenset({"shape"})

    def __matmul__(self, other):
        if isinstance(other, JAXSparse):
            raise _NotImplemented("matmul between two sparse objects.")
        other = jnp.asarray(other)
        dtype = jnp.result_type(self.data, other)
        promoted, other = self.data.astype(dtype), other.astype(dtype)
        if other.ndim == 1:
            return self._product(promoted, other, "matvec")
        if other.ndim == 2:
            return self._product(promoted, other, "matmat")
        raise _NotImplemented(f"matmul with object of shape {other.shape}")


@_register_pytree_node_class
class COO(_Unbatched):
    """A 2-D sparse matrix in coordinate format: `COO((data, row, col), shape=...)`
    (JAX's `jax.experimental.sparse.COO`; `rows_sorted` / `cols_sorted` record whether
    the entries are in row / column order)."""
    _buffers = ("data", "row", "col")

    def __init__(self, args, *, shape, rows_sorted: bool = False, cols_sorted: bool = False):
        self.data, self.row, self.col = (jnp.asarray(a) for a in args)
        self._rows_sorted = rows_sorted
        self._cols_sorted = cols_sorted
        self.shape = tuple(operator.index(d) for d in shape)

    def _aux(self):
        return {"shape": self.shape, "rows_sorted": self._rows_sorted,
                "cols_sorted": self._cols_sorted}

    _aux_keys = frozenset({"shape", "rows_sorted", "cols_sorted"})

    @classmethod
    def fromdense(cls, mat, *, nse=None, index_dtype=np.int32) -> COO:
        """The COO matrix of the nonzeros of dense `mat` (see `coo_fromdense`)."""
        return coo_fromdense(mat, nse=nse, index_dtype=index_dtype)

    def todense(self):
        """The dense matrix (duplicates summed)."""
        return coo_todense(self)

    def transpose(self, axes=None) -> COO:
        """The transpose (`row` and `col` swapped, and the sortedness flags)."""
        if axes is not None:
            raise _NotImplemented("axes argument to transpose()")
        return COO((self.data, self.col, self.row), shape=self.shape[::-1],
                   rows_sorted=self._cols_sorted, cols_sorted=self._rows_sorted)

    def _product(self, data, other, what):
        return _coo_product(data, self.row, self.col, other, shape=self.shape, transpose=False,
                            what=what)


# JAX's COO has `@` only of the array operators
for _cls in (COO,):
    for _name in ("sum", "__neg__", "__pos__", "__mul__", "__rmul__", "__add__", "__radd__",
                  "__sub__", "__rsub__", "__getitem__", "__rmatmul__"):
        setattr(_cls, _name, _refused(_name))


# ------------------------------------------------------------------------- the kernels
def _nse_of(mat, nse):
    mat = jnp.asarray(mat)
    if nse is None:
        nse = _count_nonzero(mat)
    return mat, operator.index(nse)   # (a staged count: the concretization error)


@_compiled()
def _count_nonzero(mat):
    return (mat != 0).sum()


@_compiled("nse", "index_dtype")
def _fromdense(mat, *, nse, index_dtype):
    """(data, row, col, whether each is a true nonzero) of the first `nse` nonzeros."""
    _check(mat.ndim == 2, "fromdense of a matrix")
    row, col = jnp.nonzero(mat, size=nse)
    real = jnp.arange(nse) < (mat != 0).sum()
    data = jnp.where(real, mat[row, col], 0)
    return data, row.astype(index_dtype), col.astype(index_dtype), real


def coo_fromdense(mat, *, nse=None, index_dtype=np.int32) -> COO:
    """The COO matrix of the first `nse` nonzeros of 2-D `mat` in row-major order (JAX's
    `sparse.coo_fromdense`; marked `rows_sorted`)."""
    mat, nse = _nse_of(mat, nse)
    data, row, col, _ = _fromdense(mat, nse=nse, index_dtype=np.dtype(index_dtype))
    return COO((data, row, col), shape=mat.shape, rows_sorted=True)


@_compiled("shape")
def _todense(data, row, col, *, shape):
    return jnp.zeros(shape, data.dtype).at[row, col].add(data)


def coo_todense(mat: COO):
    """The dense matrix of a COO matrix (JAX's `sparse.coo_todense`)."""
    return _todense(mat.data, mat.row, mat.col, shape=mat.shape)


@_compiled("shape", "transpose", "what")
def _coo_product(data, row, col, B, *, shape, transpose, what):
    """`mat @ B` (`mat.T @ B`) for `B` a vector (`what="matvec"`) or a matrix ("matmat")."""
    _check(data.shape == row.shape == col.shape and data.dtype == B.dtype
           and row.dtype == col.dtype and len(shape) == 2
           and B.ndim == (1 if what == "matvec" else 2)
           and B.shape[0] == shape[0 if transpose else 1], what)
    if transpose:
        row, col = col, row
    dB = data.reshape(data.shape + (1,) * (B.ndim - 1)) * B[col]
    return jnp.zeros((shape[1 if transpose else 0],) + B.shape[1:], dB.dtype).at[row].add(dB)


def coo_matvec(mat: COO, v, transpose: bool = False):
    """`mat @ v` (`mat.T @ v` with `transpose`) for a 1-D `v` of `mat`'s dtype (JAX's
    `sparse.coo_matvec`)."""
    return _coo_product(mat.data, mat.row, mat.col, jnp.asarray(v), shape=mat.shape,
                        transpose=bool(transpose), what="matvec")


def coo_matmat(mat: COO, B, *, transpose: bool = False):
    """`mat @ B` (`mat.T @ B` with `transpose`) for a 2-D `B` of `mat`'s dtype (JAX's
    `sparse.coo_matmat`)."""
    return _coo_product(mat.data, mat.row, mat.col, jnp.asarray(B), shape=mat.shape,
                        transpose=bool(transpose), what="matmat")
