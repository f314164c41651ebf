"""`jax.experimental.sparse.api`: sparse constructors by format (`empty`, `eye`; astjax
has the `bcoo` format only) and `todense` (on a dense array, the `todense` primitive:
the identity everywhere, except that `sparsify`'s interpreter densifies its operand,
as JAX's `todense_p`)."""
from __future__ import annotations

import operator

import numpy as np

from astjax import core as _core
from astjax import numpy as _jnp
from astjax import tree_util as _tree_util
from astjax.errors import JAXAttributeError as _JAXAttributeError
from astjax.errors import JAXValueError as _JAXValueError
from astjax.extend.core import Primitive as _Primitive
from astjax.interpreters import ad as _ad
from astjax.interpreters import batching as _batching
from astjax.interpreters import mlir as _mlir

from .bcoo import BCOO, JAXSparse
from .bcoo import bcoo_fromdense as _bcoo_fromdense

__all__ = ["empty", "eye", "todense"]


def _identity(x, **params):
    del params   # (`tree`: the operand's pytree structure, shown in the jaxpr as JAX's)
    return x


# `todense` of a dense array: the identity, staged as its own equation so that
# `sparsify` (which stages `f` on dense stand-ins of its sparse arguments) sees where
# the user asked for a dense value
todense_p = _Primitive("todense")
todense_p.def_impl(_identity)
todense_p.def_abstract_eval(_identity)
_ad.deflinear2(todense_p, lambda ct, _x, **params: [ct])
_batching.primitive_batchers[todense_p] = lambda args, dims, **params: (args[0], dims[0])
_mlir.register_lowering(todense_p, _mlir.lower_fun(_identity, multiple_results=False))


def todense(arr):
    """The dense array of a sparse `arr`; a dense array is returned as is (a pytree
    too, outside a transformation, as JAX's)."""
    if isinstance(arr, JAXSparse):
        return arr.todense()
    leaves = _tree_util.tree_leaves(arr)
    if len(leaves) == 1 and leaves[0] is arr and isinstance(arr, _core.Tracer):
        return todense_p.bind(arr, tree=_tree_util.tree_structure(arr))
    if any(isinstance(x, _core.Tracer) for x in leaves):
        raise _JAXAttributeError(
            f"sparse.todense of a staged {type(arr).__name__}: it takes one array "
            "(JAX's todense fails with an AttributeError on a pytree here)",
            hint="call sparse.todense on each array")
    return arr


def empty(shape, dtype=None, index_dtype="int32", sparse_format="bcoo", **kwds) -> BCOO:
    """An all-zero BCOO array with `nse` (default 0) padding entries (JAX's
    `sparse.empty`)."""
    if sparse_format != "bcoo":
        raise _JAXValueError(f"astjax's sparse module has only sparse_format='bcoo'; "
                            f"got {sparse_format!r}")
    n_batch, n_dense, nse = kwds.pop("n_batch", 0), kwds.pop("n_dense", 0), kwds.pop("nse", 0)
    if kwds:
        raise TypeError(f"sparse.empty: unexpected keyword arguments {sorted(kwds)}")
    shape = tuple(shape)
    n_sparse = len(shape) - n_dense - n_batch
    if min(n_sparse, n_dense, n_batch, nse) < 0:
        raise _JAXValueError(f"Invalid inputs: {shape=}, {n_dense=}, {n_batch=}, {nse=}")
    batch, sparse_shape = shape[:n_batch], shape[n_batch:n_batch + n_sparse]
    data = _jnp.zeros(batch + (nse,) + shape[n_batch + n_sparse:], dtype)
    indices = _jnp.broadcast_to(_jnp.asarray(sparse_shape, index_dtype), batch + (nse, n_sparse))
    return BCOO((data, indices), shape=shape, indices_sorted=True, unique_indices=True)


def eye(N: int, M: int | None = None, k: int = 0, dtype=None, index_dtype="int32",
        sparse_format="bcoo", **kwds) -> BCOO:
    """The sparse `N x M` identity with ones on diagonal `k` (JAX's `sparse.eye`)."""
    if sparse_format != "bcoo":
        raise _JAXValueError(f"astjax's sparse module has only sparse_format='bcoo'; "
                            f"got {sparse_format!r}")
    n_batch, n_dense = kwds.pop("n_batch", 0), kwds.pop("n_dense", 0)
    if kwds:
        raise TypeError(f"sparse.eye: unexpected keyword arguments {sorted(kwds)}")
    N, k = operator.index(N), operator.index(k)
    M = N if M is None else operator.index(M)
    diag = min(N, M - k) if k > 0 else min(N + k, M)
    if diag <= 0:
        return empty((N, M), dtype=dtype, index_dtype=index_dtype, n_batch=n_batch,
                     n_dense=n_dense)
    if n_batch or n_dense:
        return _bcoo_fromdense(_jnp.eye(N, M, k, dtype=dtype), n_batch=n_batch,
                              n_dense=n_dense, index_dtype=index_dtype)
    idx = np.arange(diag)
    indices = np.stack([idx - min(k, 0), idx + max(k, 0)], -1).astype(index_dtype)
    return BCOO((_jnp.ones(diag, dtype), _jnp.asarray(indices)), shape=(N, M),
                indices_sorted=True, unique_indices=True)

