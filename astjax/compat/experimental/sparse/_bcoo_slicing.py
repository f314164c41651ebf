"""BCOO structural operations after `lax`'s: `bcoo_slice`, `bcoo_dynamic_slice`,
`bcoo_squeeze`, `bcoo_broadcast_in_dim`, `bcoo_rev`, `bcoo_reshape`, `bcoo_gather`, and `bcoo_update_layout` (moving
dimensions between the batch, sparse and dense groups).

Batch and dense dimensions are sliced / broadcast on the buffers themselves; a window of
the sparse dimensions keeps the entries inside it (re-indexed), marks the others as
padding with zero data, and sums duplicates when more entries remain than the window
has positions, as JAX's do."""
from __future__ import annotations

import math
import operator
import warnings

import numpy as np

from astjax import lax
from astjax import numpy as jnp
from astjax.api import ShapeDtypeStruct as _ShapeDtypeStruct
from astjax.api import eval_shape as _eval_shape
from astjax.batching_api import vmap as _vmap
from astjax.errors import JAXTypeError as _JAXTypeError
from astjax.errors import JAXValueError as _JAXValueError
from astjax.errors import NotImplementedInAstjaxError as _NotImplemented

from .bcoo import (BCOO, _compiled, _group_permutation, _validate, bcoo_sum_duplicates,
                   bcoo_transpose)
from .util import SparseEfficiencyError, SparseEfficiencyWarning

__all__ = ["bcoo_slice", "bcoo_dynamic_slice", "bcoo_squeeze", "bcoo_broadcast_in_dim",
           "bcoo_rev", "bcoo_reshape", "bcoo_gather", "bcoo_update_layout"]


def _split(seq, mat):
    """`seq` (one item per dimension of `mat`) as (batch, sparse, dense) tuples."""
    nb, ns = mat.n_batch, mat.n_sparse
    seq = tuple(seq)
    return seq[:nb], seq[nb:nb + ns], seq[nb + ns:]


def _expand_dense(mask, n_dense):
    return jnp.expand_dims(mask, tuple(range(mask.ndim, mask.ndim + n_dense)))


def _window(mat, data, indices, starts, strides, out_sparse, new_shape):
    """The entries of `(data, indices)` in the sparse window starting at `starts`
    (arrays) with `strides` and `out_sparse` positions per dimension, re-indexed; the
    others become padding (index `out_sparse`, zero data)."""
    if not mat.n_sparse:
        return BCOO((data, indices), shape=new_shape)
    dt = indices.dtype
    starts = jnp.asarray(starts, dt)
    strides = jnp.asarray(strides, dt)
    size = jnp.asarray(out_sparse, dt)
    offset = indices - starts
    keep = ((offset >= 0) & (offset % strides == 0) & (offset // strides < size)).all(-1)
    indices = jnp.where(keep[..., None], offset // strides, size)
    data = jnp.where(_expand_dense(keep, mat.n_dense), data, jnp.zeros((), data.dtype))
    out = BCOO((data, indices), shape=new_shape)
    positions = math.prod(out_sparse)
    if mat.nse > positions:
        out = bcoo_sum_duplicates(out, nse=positions)
        out = BCOO((out.data, out.indices), shape=new_shape)
    return out


def bcoo_slice(mat: BCOO, *, start_indices, limit_indices, strides=None) -> BCOO:
    """`lax.slice` of a BCOO array (JAX's `sparse.bcoo_slice`): the result is a BCOO
    array of the same layout, without the index flags."""
    if not isinstance(mat, BCOO):
        raise _JAXTypeError(f"bcoo_slice: input should be BCOO array, got type(mat)={type(mat)}")
    _validate(mat)
    start = [operator.index(i) for i in start_indices]
    limit = [operator.index(i) for i in limit_indices]
    strides = [1] * mat.ndim if strides is None else [operator.index(s) for s in strides]
    if not len(start) == len(limit) == mat.ndim:
        raise _JAXValueError(f"bcoo_slice: indices must have size mat.ndim={mat.ndim}")
    if len(strides) != mat.ndim:
        raise _JAXValueError(f"len(strides) = {len(strides)}; expected {mat.ndim}")
    if any(s <= 0 for s in strides):
        raise _JAXValueError(f"strides must be a sequence of positive integers; got {strides}")
    if not all(0 <= a <= b <= n for a, b, n in zip(start, limit, mat.shape)):
        raise _JAXValueError(f"bcoo_slice: invalid indices. Got start_indices={start}, "
                             f"limit_indices={limit} and shape={mat.shape}")
    new_shape = tuple(-(-(b - a) // s) for a, b, s in zip(start, limit, strides))
    # the starts are an operand, not static: `S[0]`, `S[1]`, ... share one program
    return _slice(mat, np.asarray(start, mat.indices.dtype), new_shape=new_shape,
                  strides=tuple(strides))


@_compiled("new_shape", "strides")
def _slice(mat, starts, *, new_shape, strides):
    """`bcoo_slice` of validated bounds: `starts` an array, `new_shape` the result's."""
    nb = mat.n_batch
    # the dimensions of `mat` each buffer axis slices (None: kept whole, as `nse` and
    # a broadcast size-1 batch axis)
    batch_axes = lambda buf: [i if buf.shape[i] == mat.shape[i] else None  # noqa: E731
                              for i in range(nb)]
    dense_axes = list(range(nb + mat.n_sparse, mat.ndim))

    def cut(buf, axes):
        zero = jnp.zeros((), starts.dtype)
        lo = [zero if d is None else starts[d] for d in axes]
        size = [buf.shape[a] if d is None else (new_shape[d] - 1) * strides[d] + 1
                if new_shape[d] else 0 for a, d in enumerate(axes)]
        buf = lax.dynamic_slice(buf, lo, size)
        return buf[tuple(slice(None) if d is None else slice(None, None, strides[d])
                         for d in axes)]
    data = cut(mat.data, batch_axes(mat.data) + [None] + dense_axes)
    indices = cut(mat.indices, batch_axes(mat.indices) + [None, None])
    return _window(mat, data, indices, starts[nb:nb + mat.n_sparse], _split(strides, mat)[1],
                   _split(new_shape, mat)[1], new_shape)


@_compiled("slice_sizes")
def bcoo_dynamic_slice(mat: BCOO, start_indices, slice_sizes) -> BCOO:
    """`lax.dynamic_slice` of a BCOO array (JAX's `sparse.bcoo_dynamic_slice`): the
    starts may be staged (negative ones wrap, then each is clamped into range, as
    `lax.dynamic_slice`'s); the sizes are static."""
    slice_sizes = tuple(operator.index(s) for s in slice_sizes)
    if not isinstance(mat, BCOO):
        raise _JAXTypeError(f"bcoo_dynamic_slice: input should be BCOO array, got "
                            f"type(mat)={type(mat)}")
    _validate(mat)
    # lax.dynamic_slice's own checks (and errors) of the starts and sizes
    _eval_shape(lambda x, s: lax.dynamic_slice(x, s, slice_sizes),
                _ShapeDtypeStruct(mat.shape, mat.dtype), tuple(start_indices))
    starts = [jnp.asarray(s) for s in start_indices]
    zero = jnp.zeros((), starts[0].dtype if starts else np.int32)
    nb, nse = mat.n_batch, mat.nse
    b_start, s_start, d_start = _split(starts, mat)
    b_size, s_size, d_size = _split(slice_sizes, mat)

    def batch_part(buf):
        bcast = [buf.shape[i] != mat.shape[i] for i in range(nb)]
        return ([zero if b else s for b, s in zip(bcast, b_start)],
                [1 if b else n for b, n in zip(bcast, b_size)])
    ds, dn = batch_part(mat.data)
    data = lax.dynamic_slice(mat.data, ds + [zero] + list(d_start), dn + [nse] + list(d_size))
    is_, in_ = batch_part(mat.indices)
    indices = lax.dynamic_slice(mat.indices, is_ + [zero, zero], in_ + [nse, mat.n_sparse])
    if mat.n_sparse:
        dt = indices.dtype
        dims = jnp.asarray(_split(mat.shape, mat)[1], dt)
        s = jnp.stack([x.astype(dt) for x in s_start])
        s = jnp.clip(jnp.where(s < 0, s + dims, s), 0, dims - jnp.asarray(s_size, dt))
        s_start = s
    return _window(mat, data, indices, s_start, (1,) * mat.n_sparse, s_size, slice_sizes)


@_compiled("dimensions")
def bcoo_squeeze(arr: BCOO, *, dimensions) -> BCOO:
    """`lax.squeeze` of a BCOO array: size-1 dimensions removed (JAX's
    `sparse.bcoo_squeeze`; the index flags kept)."""
    _validate(arr)
    dims = tuple(operator.index(d) for d in dimensions)
    if any(not -arr.ndim <= d < arr.ndim for d in dims):
        raise _JAXValueError(f"squeeze: dimensions {dims} out of range for rank {arr.ndim}")
    dims = tuple(d % arr.ndim for d in dims)
    if any(arr.shape[d] != 1 for d in dims):
        raise _JAXValueError("cannot select an axis to squeeze out which has size not equal "
                             f"to one, got shape={arr.shape} and dimensions={dims}")
    nb, ns = arr.n_batch, arr.n_sparse
    batch = tuple(d for d in dims if d < nb)
    dense = tuple(d - ns + 1 for d in dims if d >= nb + ns)
    keep = np.array([i for i in range(ns) if i + nb not in dims], dtype=np.int64)
    data = lax.squeeze(arr.data, batch + dense)
    indices = lax.squeeze(arr.indices[..., keep], batch)
    shape = tuple(n for i, n in enumerate(arr.shape) if i not in dims)
    return BCOO((data, indices), shape=shape, indices_sorted=arr.indices_sorted,
                unique_indices=arr.unique_indices)


@_compiled("shape", "broadcast_dimensions", "sharding")
def bcoo_broadcast_in_dim(mat: BCOO, *, shape, broadcast_dimensions, sharding=None) -> BCOO:
    """`lax.broadcast_in_dim` of a BCOO array (JAX's `sparse.bcoo_broadcast_in_dim`):
    new dimensions before the sparse ones are batch dimensions, new ones among the
    sparse dimensions must have size 1; the result has no index flags."""
    del sharding
    _validate(mat)
    shape = tuple(operator.index(d) for d in shape)
    bdims = tuple(operator.index(d) for d in broadcast_dimensions)
    if len(mat.shape) != len(bdims):
        raise _JAXValueError(f"spinfo.shape={mat.shape} and broadcast_dimensions={bdims} "
                             "must have the same length")
    nb, ns, nd, nse = mat.n_batch, mat.n_sparse, mat.n_dense, mat.nse
    b_dims, s_dims, d_dims = _split(bdims, mat)
    if max(b_dims, default=0) > min(s_dims, default=len(shape)):
        raise _JAXValueError("Cannot mix batch and sparse dimensions during broadcast_in_dim")
    if max(s_dims, default=0) > min(d_dims, default=len(shape)):
        raise _JAXValueError("Cannot mix sparse and dense dimensions during broadcast_in_dim")
    new_nb = min(bdims[nb:], default=len(shape))
    new_nd = len(shape) - min(d_dims) if nd else 0
    new_ns = len(shape) - new_nb - new_nd
    if math.prod(_split(mat.shape, mat)[1]) != math.prod(shape[new_nb:new_nb + new_ns]):
        raise _NotImplemented("Adding sparse dimensions with lengths != 1")
    data, indices = mat.data, mat.indices
    dense_shape = shape[new_nb + new_ns:]
    if (new_nb, new_nd) != (nb, nd) or data.shape[nb + 1:] != dense_shape:
        data = lax.broadcast_in_dim(
            data, shape[:new_nb] + (nse,) + dense_shape,
            b_dims + (new_nb,) + tuple(d - new_ns + 1 for d in d_dims))
        indices = lax.broadcast_in_dim(indices, shape[:new_nb] + (nse, ns),
                                       b_dims + (new_nb, new_nb + 1))
    if new_ns != ns:
        cols = np.array([d - new_nb for d in s_dims], dtype=np.int64)
        indices = jnp.zeros(indices.shape[:-1] + (new_ns,), indices.dtype).at[
            ..., cols].set(indices)
    return BCOO((data, indices), shape=shape)


@_compiled("dimensions")
def bcoo_rev(operand: BCOO, dimensions) -> BCOO:
    """`lax.rev` of a BCOO array (JAX's `sparse.bcoo_rev`): reversed batch and dense
    dimensions reverse the buffers, reversed sparse ones mirror the indices."""
    _validate(operand)
    dims = tuple(operator.index(d) for d in dimensions)
    _eval_shape(lambda x: lax.rev(x, dims), _ShapeDtypeStruct(operand.shape, operand.dtype))
    nb, ns = operand.n_batch, operand.n_sparse
    data, indices = operand.data, operand.indices
    batch = tuple(d for d in dims if d < nb)
    dense = tuple(d - ns + 1 for d in dims if d >= nb + ns)
    if batch:
        indices = lax.rev(indices, batch)
    if batch or dense:
        data = lax.rev(data, batch + dense)
    sparse = [d - nb for d in dims if nb <= d < nb + ns]
    if sparse:
        n = np.asarray(operand.shape[nb:nb + ns])
        flip = np.isin(np.arange(ns), sparse)
        dt = indices.dtype
        mirrored = jnp.where(jnp.asarray(flip), jnp.asarray(n - 1, dt) - indices, indices)
        # a padding index mirrors below 0: it becomes the dimension's size again
        indices = jnp.where(mirrored < 0, jnp.asarray(n, dt), mirrored)
    return BCOO((data, indices), shape=operand.shape)


@_compiled("new_sizes", "dimensions", "sharding")
def bcoo_reshape(mat: BCOO, *, new_sizes, dimensions=None, sharding=None) -> BCOO:
    """`lax.reshape` of a BCOO array (JAX's `sparse.bcoo_reshape`): batch and dense
    dimensions reshape their buffers, the sparse ones are re-indexed; the new shape must
    keep the three groups apart. The result has no index flags."""
    del sharding
    _validate(mat)
    nb, ns, nse = mat.n_batch, mat.n_sparse, mat.nse
    if mat.data.shape[:nb] != mat.shape[:nb] or mat.indices.shape[:nb] != mat.shape[:nb]:
        raise _NotImplemented("reshape of arrays with broadcasted batch dimensions.")
    new_sizes = tuple(operator.index(d) for d in new_sizes)
    batch_shape, sparse_shape, _ = _split(mat.shape, mat)
    b_perm, s_perm, d_perm = _group_permutation(
        mat, tuple(range(mat.ndim)) if dimensions is None else dimensions)
    batch_size, sparse_size = math.prod(batch_shape), math.prod(sparse_shape)
    if math.prod(new_sizes) != mat.size:
        raise _JAXTypeError(f"reshape total size must be unchanged, got new_sizes {new_sizes} "
                            f"for shape {mat.shape}.")
    cum = np.cumprod(new_sizes)
    if batch_size != 1 and batch_size not in cum:
        raise _JAXValueError("bcoo_reshape: new shape cannot mix batch and sparse dimensions; "
                             f"got shape={mat.shape} new_shape={new_sizes} with n_batch={nb}")
    if sparse_size != 1 and batch_size * sparse_size not in cum:
        raise _JAXValueError("bcoo_reshape: new shape cannot mix sparse and dense dimensions; "
                             f"got shape={mat.shape} new_shape={new_sizes} with "
                             f"n_dense={mat.n_dense}")
    # (a trailing size-1 dimension joins the earlier group, as JAX's split does)
    i1 = int(np.searchsorted(cum, batch_size, side="right"))
    i2 = int(np.searchsorted(cum, batch_size * sparse_size, side="right"))
    new_batch, new_sparse, new_dense = new_sizes[:i1], new_sizes[i1:i2], new_sizes[i2:]
    data = lax.reshape(mat.data, new_batch + (nse,) + new_dense,
                       tuple(b_perm) + (nb,) + tuple(p + nb + 1 for p in d_perm))
    indices = lax.reshape(mat.indices, new_batch + (nse, ns), tuple(b_perm) + (nb, nb + 1))
    if not new_sparse:
        indices = jnp.zeros(new_batch + (nse, 0), indices.dtype)
    elif ns:
        dt = indices.dtype
        oob = (indices >= jnp.asarray(sparse_shape, dt)).any(-1, keepdims=True)
        flat = jnp.ravel_multi_index(tuple(indices[..., i] for i in s_perm),
                                     tuple(sparse_shape[i] for i in s_perm), mode="clip")
        cols = jnp.unravel_index(flat, new_sparse)
        indices = jnp.where(oob, jnp.asarray(new_sparse, dt),
                            jnp.stack([c.astype(dt) for c in cols], -1))
    return BCOO((data, indices), shape=new_sizes)


@_compiled("dimension_numbers", "slice_sizes", "unique_indices", "indices_are_sorted", "mode",
           "fill_value")
def bcoo_gather(operand: BCOO, start_indices, dimension_numbers, slice_sizes, *,
                unique_indices=False, indices_are_sorted=False, mode=None,
                fill_value=None) -> BCOO:
    """`lax.gather` of a BCOO array (JAX's `sparse.bcoo_gather`; what `S[array]`
    stages): one `bcoo_dynamic_slice` per start index, mapped with `vmap`, then laid
    out as `lax.gather`'s result. Only the promise-in-bounds mode (clamped starts)."""
    _validate(operand)
    start_indices = jnp.asarray(start_indices)
    if mode is not None and "PROMISE_IN_BOUNDS" not in str(mode).upper():
        raise _NotImplemented(f"bcoo_gather: mode={mode} not yet supported.")
    out = _eval_shape(
        lambda x, i: lax.gather(x, i, dimension_numbers, tuple(slice_sizes),
                                unique_indices=unique_indices,
                                indices_are_sorted=indices_are_sorted, mode=mode,
                                fill_value=fill_value),
        _ShapeDtypeStruct(operand.shape, operand.dtype),
        _ShapeDtypeStruct(start_indices.shape, start_indices.dtype))
    offset_dims = tuple(dimension_numbers.offset_dims)
    starts = [jnp.zeros((), start_indices.dtype)] * operand.ndim
    in_axes = [None] * operand.ndim
    sizes = list(operand.shape)
    for i, j in enumerate(dimension_numbers.start_index_map):
        starts[j] = start_indices[..., i].ravel()
        sizes[j] = slice_sizes[j]
        in_axes[j] = 0
    collapsed = tuple(dimension_numbers.collapsed_slice_dims)

    def one(s):
        return bcoo_squeeze(bcoo_dynamic_slice(operand, s, sizes), dimensions=collapsed)
    result = _vmap(one, in_axes=(in_axes,))(starts)
    result = bcoo_reshape(result, new_sizes=start_indices.shape[:-1] + result.shape[1:],
                          dimensions=tuple(range(result.ndim)))
    if result.shape:
        batch = tuple(d for d in range(len(out.shape)) if d not in offset_dims)
        perm = np.zeros(result.ndim, dtype=int)
        perm[np.array(batch + offset_dims, dtype=int)] = np.arange(result.ndim)
        if set(perm[:len(batch)]) != set(range(len(batch))):
            result = bcoo_update_layout(result, n_batch=0)
        result = bcoo_transpose(result, permutation=tuple(int(p) for p in perm))
    return result.reshape(out.shape).astype(out.dtype)


# ------------------------------------------------------------------ bcoo_update_layout
def _dense_to_sparse(data, indices, nb, n):
    """The first `n` dense dimensions made sparse: every entry split into one entry per
    position of those dimensions (its index extended by the position)."""
    moved, rest = data.shape[nb + 1:nb + 1 + n], data.shape[nb + 1 + n:]
    count = math.prod(moved)
    nse = indices.shape[-2]
    grid = jnp.asarray(np.stack(np.unravel_index(np.arange(count), moved), -1), indices.dtype)
    data = data.reshape(data.shape[:nb] + (nse * count,) + rest)
    lead = indices.shape[:-1] + (count,)
    old = jnp.broadcast_to(indices[..., :, None, :], lead + (indices.shape[-1],))
    new = jnp.broadcast_to(grid, lead + (n,))
    indices = jnp.concatenate([old, new], -1).reshape(
        indices.shape[:-2] + (nse * count, indices.shape[-1] + n))
    return data, indices


def _batch_to_sparse(data, indices, batch_shape, n):
    """The last `n` batch dimensions made sparse: their entries joined into one `nse`,
    each index prefixed with its batch position."""
    keep = len(batch_shape) - n
    moved = batch_shape[keep:]
    data = jnp.broadcast_to(data, batch_shape + data.shape[len(batch_shape):])
    indices = jnp.broadcast_to(indices, batch_shape + indices.shape[len(batch_shape):])
    nse = indices.shape[-2]
    pos = np.stack(np.unravel_index(np.arange(math.prod(moved)), moved), -1)
    pos = jnp.asarray(np.repeat(pos, nse, 0), indices.dtype)
    total = math.prod(moved) * nse
    data = data.reshape(batch_shape[:keep] + (total,) + data.shape[len(batch_shape) + 1:])
    indices = indices.reshape(batch_shape[:keep] + (total, indices.shape[-1]))
    pos = jnp.broadcast_to(pos, indices.shape[:-1] + (n,))
    return data, jnp.concatenate([pos, indices], -1)


def _sparse_to_dense(data, indices, nb, dense_shape):
    """The last `len(dense_shape) - (data's dense dims)` sparse dimensions made dense:
    each entry's data written at its position among them (out of range: dropped)."""
    n = len(dense_shape) - (data.ndim - nb - 1)
    cols = tuple(indices[..., indices.shape[-1] - n + j] for j in range(n))
    lead = data.shape[:nb + 1]
    out = jnp.zeros(lead + tuple(dense_shape), data.dtype)
    grid = tuple(jnp.broadcast_to(jnp.arange(s).reshape((1,) * i + (s,) + (1,) * (len(lead) - i - 1)),
                                  lead) for i, s in enumerate(lead))
    out = out.at[grid + cols].set(data, mode="drop")
    return out, indices[..., :indices.shape[-1] - n]


def _sparse_to_batch(data, indices, batch_shape, new_batch):
    """The first sparse dimensions made batch dimensions of sizes `new_batch`: each
    entry's data placed at its batch position, the same slot among `nse`."""
    n = len(new_batch)
    nb = len(batch_shape)
    data = jnp.broadcast_to(data, batch_shape + data.shape[nb:])
    indices = jnp.broadcast_to(indices, batch_shape + indices.shape[nb:])
    nse = indices.shape[-2]
    out = jnp.zeros(batch_shape + tuple(new_batch) + data.shape[nb:], data.dtype)
    full = batch_shape + (nse,)
    grid = [jnp.broadcast_to(jnp.arange(s).reshape((1,) * i + (s,) + (1,) * (len(full) - i - 1)),
                             full) for i, s in enumerate(full)]
    pos = tuple(indices[..., j] for j in range(n))
    out = out.at[tuple(grid[:nb]) + pos + (grid[nb],)].set(data, mode="drop")
    rest = indices[..., n:].reshape(batch_shape + (1,) * n + (nse, indices.shape[-1] - n))
    rest = jnp.broadcast_to(rest, batch_shape + tuple(new_batch) + rest.shape[-2:])
    return out, rest


def bcoo_update_layout(mat: BCOO, *, n_batch=None, n_dense=None,
                       on_inefficient="error") -> BCOO:
    """`mat` stored with `n_batch` batch and `n_dense` dense dimensions (JAX's
    `sparse.bcoo_update_layout`): the same dense array; making a dimension of size > 1
    batch or dense stores explicit zeros, which raises `SparseEfficiencyError`
    (`on_inefficient='error'`), warns (`'warn'`) or is allowed (`None`)."""
    _validate(mat)
    n_batch = mat.n_batch if n_batch is None else operator.index(n_batch)
    n_dense = mat.n_dense if n_dense is None else operator.index(n_dense)
    if (n_batch, n_dense) == (mat.n_batch, mat.n_dense):
        return mat
    if on_inefficient not in ("error", "warn", None):
        raise _JAXValueError(f"on_inefficent={on_inefficient!r}; expected one of "
                             "['error', 'warn', None].")
    if n_batch < 0:
        raise _JAXValueError(f"n_batch must be non-negative; got {n_batch}")
    if n_dense < 0:
        raise _JAXValueError(f"n_dense must be non-negative; got {n_dense}")
    if mat.ndim - n_batch - n_dense < 0:
        raise _JAXValueError(f"sum of {n_batch=} and {n_dense=} cannot be larger than "
                             f"mat.ndim={mat.ndim}.")

    def inefficient(msg):
        if on_inefficient == "error":
            raise SparseEfficiencyError(msg + " To disable this error, set the on_inefficient "
                                        "argument of bcoo_update_layout to 'warn' or None.")
        if on_inefficient == "warn":
            warnings.warn(msg + " To disable this warning, set the on_inefficient argument "
                          "of bcoo_update_layout to None.", SparseEfficiencyWarning,
                          stacklevel=3)
    shape = mat.shape
    if n_dense > mat.n_dense and any(d > 1 for d in shape[mat.ndim - n_dense:mat.ndim - mat.n_dense]):
        inefficient(f"For matrix of shape {shape}, increasing n_dense from {mat.n_dense} to "
                    f"{n_dense} results in inefficient storage.")
    if n_batch > mat.n_batch and any(d > 1 for d in shape[mat.n_batch:n_batch]):
        inefficient(f"For matrix of shape {shape}, increasing n_batch from {mat.n_batch} to "
                    f"{n_batch} results in inefficient storage.")
    return _relayout(mat, n_batch=n_batch, n_dense=n_dense)


@_compiled("n_batch", "n_dense")
def _relayout(mat, *, n_batch, n_dense):
    """`bcoo_update_layout`'s data movement (its checks and warnings done)."""
    shape = mat.shape
    data, indices = mat.data, mat.indices
    nb, nd = mat.n_batch, mat.n_dense
    if n_dense < nd:
        data, indices = _dense_to_sparse(data, indices, nb, nd - n_dense)
        nd = n_dense
    if n_batch < nb:
        data, indices = _batch_to_sparse(data, indices, shape[:nb], nb - n_batch)
        nb = n_batch
    if n_dense > nd:
        data, indices = _sparse_to_dense(data, indices, nb, shape[len(shape) - n_dense:])
        nd = n_dense
    if n_batch > nb:
        data, indices = _sparse_to_batch(data, indices, shape[:nb], shape[nb:n_batch])
    return BCOO((data, indices), shape=shape)
