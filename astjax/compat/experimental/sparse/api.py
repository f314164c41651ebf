"""`jax.experimental.sparse.api`: sparse constructors by format (`empty`, `eye`; astjax
has the `bcoo` format only), the random BCOO array (`random_bcoo`, JAX's
`sparse.random`) and `todense` (on a dense array, the `todense` primitive:
the identity everywhere, except that `sparsify`'s interpreter densifies its operand,
as JAX's `todense_p`)."""
from __future__ import annotations

import math
import operator

import numpy as np

from astjax import random as _random
from astjax.batching_api import vmap as _vmap

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
from .util import _SparseAssertionError

__all__ = ["empty", "eye", "random_bcoo", "todense"]


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


def random_bcoo(key, shape, *, dtype=None, indices_dtype=None, nse=0.2, n_batch: int = 0,
                n_dense: int = 0, unique_indices: bool = True, sorted_indices: bool = False,
                generator=_random.uniform, **kwds) -> BCOO:
    """A random BCOO array (JAX's `sparse.random_bcoo`, the same draws from `key`):
    `nse` entries per batch (a fraction of the sparse size when `0 < nse < 1`) at
    positions drawn by `random.choice` (without replacement when `unique_indices`),
    data drawn by `generator(key, shape=, dtype=, **kwds)`; sorted when
    `sorted_indices`. The key is split into one for the data and one per batch."""
    shape = tuple(operator.index(d) for d in shape)
    n_batch, n_dense = operator.index(n_batch), operator.index(n_dense)
    if n_batch < 0 or n_dense < 0 or n_batch + n_dense > len(shape):
        raise _JAXValueError(f"Invalid {n_batch=}, {n_dense=} for {shape=}")
    n_sparse = len(shape) - n_batch - n_dense
    batch_shape, sparse_shape = shape[:n_batch], shape[n_batch:n_batch + n_sparse]
    dense_shape = shape[n_batch + n_sparse:]
    sparse_size = math.prod(sparse_shape)
    if not 0 <= nse < sparse_size:
        raise _JAXValueError(f"got {nse=}, expected to be between 0 and {sparse_size}")
    if 0 < nse < 1:
        nse = math.ceil(nse * sparse_size)
    if isinstance(nse, float):
        raise _SparseAssertionError(f"random_bcoo: a float {nse=} must be in (0, 1)")
    nse = operator.index(nse)
    dtype = _jnp.float_ if dtype is None else dtype
    indices_dtype = _jnp.asarray(0).dtype if indices_dtype is None else indices_dtype
    if sparse_size > _jnp.iinfo(indices_dtype).max:
        raise _JAXValueError(f"{indices_dtype=} does not have enough range to generate "
                             f"sparse indices of size {sparse_size}.")

    def one_batch(k):
        if not sparse_shape:
            return _jnp.zeros((nse, 0), indices_dtype)
        flat = _random.choice(k, sparse_size, shape=(nse,), replace=not unique_indices)
        return _jnp.stack(_jnp.unravel_index(flat.astype(indices_dtype), sparse_shape), -1)
    keys = _random.split(key, math.prod(batch_shape) + 1)
    data = generator(keys[0], shape=batch_shape + (nse,) + dense_shape, dtype=dtype, **kwds)
    indices = _vmap(one_batch)(keys[1:]).reshape(batch_shape + (nse, n_sparse))
    mat = BCOO((data, indices), shape=shape)
    return mat.sort_indices() if sorted_indices else mat
