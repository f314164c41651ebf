"""`jax.experimental.sparse.random`: `random_bcoo`, a BCOO array of random entries at
random positions, drawn from a PRNG key as JAX's are (the same values for the same
key and arguments)."""
from __future__ import annotations

import math
import operator

from astjax import numpy as _jnp
from astjax import random as _random
from astjax.batching_api import vmap as _vmap
from astjax.errors import JAXValueError as _JAXValueError

from .bcoo import BCOO as _BCOO
from .util import _SparseAssertionError

__all__ = ["random_bcoo"]


def random_bcoo(key, shape, *, dtype=None, indices_dtype=None, nse=0.2, n_batch: int = 0,
                n_dense: int = 0, unique_indices: bool = True, sorted_indices: bool = False,
                generator=_random.uniform, **kwds) -> _BCOO:
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
    mat = _BCOO((data, indices), shape=shape)
    return mat.sort_indices() if sorted_indices else mat
