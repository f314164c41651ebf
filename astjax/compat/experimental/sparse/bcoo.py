"""`jax.experimental.sparse.bcoo`: the batched-COO sparse array `BCOO` and the
layout operations on it (dense <-> sparse, transpose, sums, elementwise products,
sorting and summing duplicate indices).

A `BCOO` of shape `batch + sparse + dense` stores `data` of shape
`(*batch, nse, *dense)` and `indices` of shape `(*batch, nse, n_sparse)`; an index
equal to the sparse shape marks padding (dropped by `todense`). Every operation is
written with `astjax.numpy` / `astjax.lax` (gathers, scatter-adds, sorts), so `jit`,
`vmap` and `grad` through `data` work as for any other array code."""
from __future__ import annotations

import functools
import inspect
import math
import operator

import numpy as np

from astjax import numpy as jnp
from astjax.api import ShapeDtypeStruct as _ShapeDtypeStruct
from astjax.api import eval_shape as _eval_shape
from astjax.errors import JAXTypeError as _JAXTypeError
from astjax.errors import JAXValueError as _JAXValueError
from astjax.errors import NotImplementedInAstjaxError as _NotImplementedInAstjax
from astjax import lax
from astjax.numpy.util import library_jit as _library_jit
from astjax.pytree_registry import register_pytree_node_class as _register_pytree_node_class

from astjax.transforms.batching import register_vmappable as _register_vmappable
from ._bcoo_dot import sparse_lhs as _sparse_lhs

__all__ = ["BCOO", "JAXSparse", "bcoo_fromdense", "bcoo_todense", "bcoo_extract",
           "bcoo_transpose", "bcoo_reduce_sum", "bcoo_multiply_dense", "bcoo_sort_indices",
           "bcoo_sum_duplicates", "bcoo_eliminate_zeros", "bcoo_dot_general",
           "bcoo_concatenate"]


class JAXSparse:
    """Base class of the sparse array types (`BCOO`, `BCSR`): shape, size, dtype,
    `.T`, `block_until_ready`, the repr."""
    __hash__ = None  # type: ignore[assignment]

    def __len__(self):
        return self.shape[0]

    @property
    def size(self) -> int:
        """The number of elements of the dense array this represents."""
        return math.prod(self.shape)

    @property
    def dtype(self):
        """The dtype of the data."""
        return self.data.dtype

    def __repr__(self):
        extra = f", nse={self.nse}"
        if self.n_batch:
            extra += f", n_batch={self.n_batch}"
        if self.n_dense:
            extra += f", n_dense={self.n_dense}"
        return f"{type(self).__name__}({self.dtype}{list(self.shape)}{extra})"

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return len(self.shape)

    @property
    def T(self):
        """The transpose (all axes reversed)."""
        return self.transpose()

    _buffers: tuple = ()   # (the buffers' attribute names: the pytree children)

    def tree_flatten(self):
        """Children the buffers (`_buffers`); aux the shape and the index flags."""
        return tuple(getattr(self, b) for b in self._buffers), {
            "shape": self.shape, "indices_sorted": self.indices_sorted,
            "unique_indices": self.unique_indices}

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        """Rebuild from `tree_flatten`'s output (no validation: leaves may be anything;
        `vmap` maps a sparse array as a whole, see `_register_batch_vmappable`)."""
        obj = object.__new__(cls)
        obj.__dict__.update(zip(cls._buffers, children))
        if aux_data.keys() != {"shape", "indices_sorted", "unique_indices"}:
            raise _JAXValueError(f"{cls.__name__}.tree_unflatten: invalid {aux_data=}")
        obj.__dict__.update(aux_data)
        return obj

    def block_until_ready(self):
        """Wait for the stored buffers; returns `self`."""
        for buf in self.tree_flatten()[0]:
            buf.block_until_ready()
        return self


def _props(data, indices, shape):
    """(n_batch, n_sparse, n_dense, nse) of buffers for `shape`, or JAX's ValueError."""
    if not jnp.issubdtype(indices.dtype, jnp.integer) or indices.ndim < 2:
        raise _JAXValueError(f"BCOO indices must be an integer array of rank >= 2; "
                            f"got {indices.dtype}{list(indices.shape)}")
    nse, n_sparse = indices.shape[-2:]
    n_batch = indices.ndim - 2
    n_dense = len(shape) - n_batch - n_sparse
    if n_dense < 0:
        raise _JAXValueError(f"Invalid {indices.shape=} for {shape=}")
    for what, buf in (("indices", indices), ("data", data)):
        if any(s not in (1, t) for s, t in zip(buf.shape[:n_batch], shape[:n_batch])):
            raise _JAXValueError(f"{what} batch dimensions not compatible for "
                                f"{what}.shape={buf.shape}, {shape=}")
    if data.shape[n_batch:] != (nse,) + tuple(shape[n_batch + n_sparse:]):
        raise _JAXValueError(f"Invalid data.shape={data.shape} for {nse=}, {n_batch=}, "
                            f"{n_dense=}")
    return n_batch, n_sparse, n_dense, nse


def _frozen(v):
    """A static parameter made hashable (lists and arrays of ints: tuples)."""
    if type(v) in (list, tuple):
        return tuple(_frozen(x) for x in v)
    if isinstance(v, np.ndarray):
        return tuple(_frozen(x) for x in v.tolist())
    return v


def _compiled(*static):
    """Decorator: the operation run as one compiled program per signature when called
    on concrete operands (as JAX's sparse primitives each run as one program eagerly),
    inlined when called while staging; parameters named in `static` are static (lists
    made tuples). Without it each of the operation's jnp calls compiles on its own."""
    def decorate(fn):
        jitted = _library_jit(fn, static_argnames=static)
        sig = inspect.signature(fn)

        @functools.wraps(fn)
        def call(*args, **kwargs):
            try:
                bound = sig.bind(*args, **kwargs)
            except TypeError:
                return fn(*args, **kwargs)   # (Python's own error)
            for k in static:
                if k in bound.arguments:
                    bound.arguments[k] = _frozen(bound.arguments[k])
            return jitted(*bound.args, **bound.kwargs)
        return call
    return decorate


def _validate(mat):
    """`_props` of a BCOO before an operation: its buffers may have been replaced through
    the pytree (`tree_map` of a function that changes their shapes)."""
    try:
        return _props(mat.data, mat.indices, mat.shape)
    except _JAXValueError as e:
        raise _JAXValueError(
            f"BCOO buffers do not match its shape: {e.message}",
            hint="a function mapped over a BCOO's leaves must keep the buffers' layout; "
                 "build a new BCOO((data, indices), shape=...) instead") from None


@_register_pytree_node_class
class BCOO(JAXSparse):
    """A batched-COO sparse array: `BCOO((data, indices), shape=...)` (JAX's
    `jax.experimental.sparse.BCOO`). Duplicate indices are summed; an index equal to
    the sparse shape is padding."""
    _buffers = ("data", "indices")

    def __init__(self, args, *, shape, indices_sorted: bool = False,
                 unique_indices: bool = False):
        self.data, self.indices = (jnp.asarray(a) for a in args)
        self.shape = tuple(operator.index(d) for d in shape)
        self.indices_sorted = indices_sorted
        self.unique_indices = unique_indices
        _props(self.data, self.indices, self.shape)

    @property
    def nse(self) -> int:
        """The number of specified elements (per batch)."""
        return self.indices.shape[-2]

    @property
    def n_batch(self) -> int:
        """The number of leading batch dimensions."""
        return self.indices.ndim - 2

    @property
    def n_sparse(self) -> int:
        """The number of sparse dimensions."""
        return self.indices.shape[-1]

    @property
    def n_dense(self) -> int:
        """The number of trailing dense dimensions."""
        return self.data.ndim - 1 - self.n_batch

    @classmethod
    def fromdense(cls, mat, *, nse=None, index_dtype=np.int32, n_dense: int = 0,
                  n_batch: int = 0) -> BCOO:
        """The BCOO array holding the nonzeros of dense `mat` (see `bcoo_fromdense`)."""
        return bcoo_fromdense(mat, nse=nse, index_dtype=index_dtype, n_dense=n_dense,
                              n_batch=n_batch)

    @classmethod
    def from_scipy_sparse(cls, mat, *, index_dtype=None, n_dense: int = 0,
                          n_batch: int = 0) -> BCOO:
        """The BCOO array of a `scipy.sparse` matrix (its COO entries, in order)."""
        if n_dense or n_batch:
            raise NotImplementedError("BCOO.fromscipy with nonzero n_dense/n_batch")
        mat = mat.tocoo()
        indices = np.column_stack((mat.row, mat.col)).astype(index_dtype or np.int32)
        return cls((jnp.asarray(mat.data), jnp.asarray(indices)), shape=mat.shape)

    def todense(self):
        """The dense array (duplicates summed, padding dropped)."""
        return bcoo_todense(self)

    def transpose(self, axes=None) -> BCOO:
        """The array with its axes permuted (batch, sparse and dense axes each among
        themselves)."""
        perm = list(range(self.ndim)[::-1] if axes is None else axes)
        out = bcoo_transpose(self, permutation=perm)
        sparse_perm = [p - self.n_batch for p in perm[self.n_batch:self.n_batch + self.n_sparse]]
        out.indices_sorted = self.indices_sorted and sparse_perm == list(range(self.n_sparse))
        return out

    def sort_indices(self) -> BCOO:
        """A copy with the indices in lexicographic order."""
        return bcoo_sort_indices(self)

    def sum_duplicates(self, nse=None, remove_zeros: bool = True) -> BCOO:
        """A copy with duplicate indices summed, sorted, and (by default) explicit zeros
        removed; `nse` fixes the output size (required under `jit`)."""
        if remove_zeros:
            return bcoo_eliminate_zeros(self, nse=nse)
        return bcoo_sum_duplicates(self, nse=nse)


def _same_layout(mat, data, indices=None, **flags):
    """A BCOO like `mat` with new buffers (flags kept unless given)."""
    flags = {"indices_sorted": mat.indices_sorted, "unique_indices": mat.unique_indices,
             **flags}
    return BCOO((data, mat.indices if indices is None else indices), shape=mat.shape,
                **flags)


def _full_indices(mat):
    """`(data, index columns)`: batch dims broadcast, and the batch coordinates
    prepended to the sparse indices, so one gather/scatter covers every batch."""
    _validate(mat)
    n_batch, n_sparse = mat.n_batch, mat.n_sparse
    batch = mat.shape[:n_batch]
    data = jnp.broadcast_to(mat.data, batch + mat.data.shape[n_batch:])
    indices = jnp.broadcast_to(mat.indices, batch + (mat.nse, n_sparse))
    cols = [jnp.broadcast_to(jnp.arange(b, dtype=indices.dtype).reshape(
        (1,) * i + (b,) + (1,) * (n_batch - i)), batch + (mat.nse,))
        for i, b in enumerate(batch)]
    cols += [indices[..., i] for i in range(n_sparse)]
    return data, tuple(cols)


@_compiled()
def bcoo_todense(mat: BCOO):
    """The dense array of `mat`: data scatter-added at its indices (JAX's
    `sparse.bcoo_todense`)."""
    data, cols = _full_indices(mat)
    out = jnp.zeros(mat.shape, mat.dtype)
    if not cols:
        return out + data.sum(0)
    return out.at[cols].add(data, mode="drop")


def bcoo_extract(sparr: BCOO, arr, *, assume_unique=None) -> BCOO:
    """The entries of dense `arr` at `sparr`'s indices, as a BCOO of `sparr`'s layout
    (0 at padding; a duplicated index keeps the value once when `assume_unique` is
    False, as JAX)."""
    arr = jnp.asarray(arr)
    if arr.shape != sparr.shape:
        raise _JAXValueError(f"shape mismatch: {sparr.shape=} {arr.shape=}")
    if assume_unique is None:
        assume_unique = sparr.unique_indices
    return _extract(sparr, arr, assume_unique=bool(assume_unique))


@_compiled("assume_unique")
def _extract(sparr, arr, *, assume_unique):
    _, cols = _full_indices(sparr)
    data = arr.at[cols].get(mode="fill", fill_value=0) if cols else jnp.broadcast_to(
        arr, (sparr.nse,) + arr.shape)
    if not assume_unique:
        data = jnp.where(_first_occurrence(sparr), data, 0) if cols else data
    return _same_layout(sparr, data, jnp.broadcast_to(
        sparr.indices, sparr.shape[:sparr.n_batch] + sparr.indices.shape[sparr.n_batch:]))


def _first_occurrence(mat):
    """Mask `(*batch, nse, 1...)`: True at the first entry of each distinct index."""
    idx = jnp.broadcast_to(mat.indices, mat.shape[:mat.n_batch] + mat.indices.shape[mat.n_batch:])
    same = (idx[..., :, None, :] == idx[..., None, :, :]).all(-1)
    earlier = jnp.tril(same, -1).any(-1)
    return jnp.expand_dims(~earlier, tuple(range(idx.ndim - 1, idx.ndim - 1 + mat.n_dense)))


def _indices_at(linear, valid, shape, dtype):
    """Index rows `(..., len(shape))` of the row-major positions `linear` in `shape`;
    where not `valid`, the shape itself (padding)."""
    if not shape:
        return jnp.zeros(linear.shape + (0,), dtype)
    coords = jnp.unravel_index(jnp.minimum(linear, max(math.prod(shape) - 1, 0)), shape)
    return jnp.where(valid[..., None], jnp.stack(coords, -1).astype(dtype),
                     jnp.asarray(shape, dtype))


def bcoo_fromdense(mat, *, nse=None, n_batch: int = 0, n_dense: int = 0,
                   index_dtype=np.int32) -> BCOO:
    """The BCOO array of the nonzeros of `mat` in row-major order (JAX's
    `sparse.bcoo_fromdense`): `nse` entries per batch (default: the largest count,
    which needs a concrete `mat`; under `jit` pass `nse`), padded with zeros at
    out-of-range indices."""
    mat = jnp.asarray(mat)
    n_sparse = mat.ndim - n_batch - n_dense
    if n_sparse < 0 or n_batch < 0 or n_dense < 0:
        raise _JAXValueError(f"Invalid {n_batch=}, {n_dense=} for {mat.shape=}")
    if nse is None:
        counts = _nonzero_counts(mat, n_batch=n_batch, n_dense=n_dense)
        nse = counts.max() if counts.size else 0
    nse = operator.index(nse)  # a staged count raises the concretization error here
    return _fromdense(mat, nse=nse, n_batch=n_batch, n_dense=n_dense,
                      index_dtype=np.dtype(index_dtype))


@_compiled("n_batch", "n_dense")
def _nonzero_counts(mat, *, n_batch, n_dense):
    """The number of nonzero (sparse-position) entries per batch."""
    mask = mat != 0
    if n_dense:
        mask = mask.any(tuple(range(mat.ndim - n_dense, mat.ndim)))
    batch, sparse_shape = mat.shape[:n_batch], mat.shape[n_batch:mat.ndim - n_dense]
    return mask.reshape(batch + (math.prod(sparse_shape),)).sum(-1)


@_compiled("nse", "n_batch", "n_dense", "index_dtype")
def _fromdense(mat, *, nse, n_batch, n_dense, index_dtype):
    n_sparse = mat.ndim - n_batch - n_dense
    batch, sparse_shape = mat.shape[:n_batch], mat.shape[n_batch:n_batch + n_sparse]
    mask = mat != 0
    if n_dense:
        mask = mask.any(tuple(range(mat.ndim - n_dense, mat.ndim)))
    flat = mask.reshape(batch + (math.prod(sparse_shape),))
    counts = flat.sum(-1)
    size = flat.shape[-1]
    order = jnp.argsort(~flat, axis=-1, stable=True)[..., :nse]
    if nse > size:
        order = jnp.concatenate([order, jnp.full(batch + (nse - size,), size, order.dtype)], -1)
    valid = jnp.arange(nse) < counts[..., None]
    indices = _indices_at(order, valid, sparse_shape, index_dtype)
    out = BCOO((jnp.zeros(batch + (nse,) + mat.shape[mat.ndim - n_dense:], mat.dtype), indices),
               shape=mat.shape, indices_sorted=True, unique_indices=True)
    data = bcoo_extract(out, mat, assume_unique=True).data
    valid = jnp.expand_dims(valid, tuple(range(valid.ndim, valid.ndim + n_dense)))
    return _same_layout(out, jnp.where(valid, data, 0))


def _group_permutation(mat, dimensions):
    """`dimensions` (a permutation of `mat`'s axes) as (batch, sparse, dense) permutations
    relative to each group's first axis; JAX's errors where it mixes the groups."""
    if not isinstance(dimensions, (tuple, list, np.ndarray)):
        raise _JAXTypeError("transpose permutation must be a tuple/list/ndarray, got "
                            f"{type(dimensions)}.")
    perm = tuple(operator.index(p) for p in dimensions)
    if tuple(sorted(perm)) != tuple(range(mat.ndim)):
        raise _JAXTypeError("transpose permutation isn't a permutation of operand dimensions, "
                            f"got permutation {perm} for shape {mat.shape}.")
    nb, ns = mat.n_batch, mat.n_sparse
    b, s, d = perm[:nb], tuple(p - nb for p in perm[nb:nb + ns]), tuple(
        p - nb - ns for p in perm[nb + ns:])
    if nb and tuple(sorted(b)) != tuple(range(nb)):
        raise _NotImplementedInAstjax("transpose permutation cannot permute batch axes with non-batch "
                              f"axes; got permutation {perm}, with n_batch={nb}.")
    if mat.n_dense and tuple(sorted(d)) != tuple(range(mat.n_dense)):
        raise _NotImplementedInAstjax("transpose permutation cannot permute dense axes with non-dense "
                              f"axes; got permutation {perm}, with n_dense={mat.n_dense}.")
    return b, s, d


@_compiled("permutation")
def bcoo_transpose(mat: BCOO, *, permutation) -> BCOO:
    """`mat` with axes permuted; batch, sparse and dense axes must each map among
    themselves (JAX's `sparse.bcoo_transpose`: indices unique if `mat`'s were, not
    marked sorted)."""
    _validate(mat)
    batch_perm, sparse_perm, dense_perm = _group_permutation(mat, permutation)
    nb, ns = mat.n_batch, mat.n_sparse
    data = mat.data.transpose(batch_perm + (nb,) + tuple(p + nb + 1 for p in dense_perm))
    indices = mat.indices.transpose(batch_perm + (nb, nb + 1))
    if ns:
        indices = indices[..., np.array(sparse_perm, dtype=np.int64)]
    return BCOO((data, indices), shape=tuple(mat.shape[operator.index(p)] for p in permutation),
                unique_indices=mat.unique_indices)


@_compiled("axes")
def bcoo_reduce_sum(mat: BCOO, *, axes) -> BCOO:
    """The sum of `mat` over `axes`, as a BCOO (summed sparse axes drop their index
    column: duplicates remain, summed by `todense`; summed batch axes join `nse`)."""
    _validate(mat)
    nb, ns = mat.n_batch, mat.n_sparse
    axes = sorted(set(operator.index(a) for a in axes))
    data = mat.data.sum(tuple(a - ns + 1 for a in axes if a >= nb + ns))
    indices = mat.indices
    if ns:
        in_range = (indices < jnp.asarray(mat.shape[nb:nb + ns], indices.dtype)).all(-1)
        data = jnp.where(jnp.expand_dims(in_range, tuple(range(in_range.ndim, data.ndim))),
                         data, 0)
    keep = [i for i in range(ns) if i + nb not in axes]
    indices = indices[..., np.array(keep, dtype=np.int64)] if keep else indices[..., :0]
    summed = [a for a in range(nb) if a in axes]
    if summed:
        kept = [a for a in range(nb) if a not in axes]
        out_batch = tuple(mat.shape[a] for a in kept)
        data = jnp.broadcast_to(data, mat.shape[:nb] + data.shape[nb:])
        indices = jnp.broadcast_to(indices, mat.shape[:nb] + indices.shape[nb:])
        order = tuple(kept) + tuple(summed)
        data = data.transpose(order + tuple(range(nb, data.ndim))).reshape(
            out_batch + (-1,) + data.shape[nb + 1:])
        indices = indices.transpose(order + (nb, nb + 1)).reshape(
            out_batch + (-1, len(keep)))
    shape = tuple(d for a, d in enumerate(mat.shape) if a not in axes)
    return BCOO((data, indices), shape=shape)


def bcoo_multiply_dense(sp_mat: BCOO, v):
    """The data of `sp_mat * v` for a dense `v` broadcasting to `sp_mat`'s shape (JAX's
    `sparse.bcoo_multiply_dense`: the product is sparse, with `sp_mat`'s indices)."""
    _validate(sp_mat)
    v = jnp.asarray(v)
    if v.ndim == 0:
        return sp_mat.data * v
    shape = jnp.broadcast_shapes(v.shape, sp_mat.shape)
    if shape != sp_mat.shape:
        raise _JAXValueError(f"bcoo_multiply_dense: dense shape {v.shape} must broadcast "
                            f"to the sparse shape {sp_mat.shape}; got {shape}")
    return _multiply_dense(sp_mat, v)


@_compiled()
def _multiply_dense(sp_mat, v):
    v = jnp.broadcast_to(v, sp_mat.shape)
    return sp_mat.data * _extract(sp_mat, v, assume_unique=True).data


def _linear_keys(mat, indices):
    """Each entry's row-major sparse position (`size` for padding / out of range)."""
    sparse_shape = mat.shape[mat.n_batch:mat.n_batch + mat.n_sparse]
    size = math.prod(sparse_shape)
    key = jnp.zeros(indices.shape[:-1], np.int64 if size >= 2 ** 31 else np.int32)
    oob = jnp.zeros(indices.shape[:-1], bool)
    for i, d in enumerate(sparse_shape):
        key = key * d + indices[..., i].astype(key.dtype)
        oob = oob | (indices[..., i] >= d) | (indices[..., i] < 0)
    return jnp.where(oob, size, key), size


def _broadcast_buffers(mat):
    """`(data, indices)` with batch dims broadcast to `mat`'s batch shape."""
    _validate(mat)
    batch = mat.shape[:mat.n_batch]
    return (jnp.broadcast_to(mat.data, batch + mat.data.shape[mat.n_batch:]),
            jnp.broadcast_to(mat.indices, batch + mat.indices.shape[mat.n_batch:]))


@_compiled()
def bcoo_sort_indices(mat: BCOO) -> BCOO:
    """`mat` with entries in lexicographic index order (stable; JAX's
    `sparse.bcoo_sort_indices`)."""
    if mat.n_sparse == 0 or mat.nse == 0:
        return _same_layout(mat, mat.data, indices_sorted=True)
    data, indices = _broadcast_buffers(mat)
    key, _ = _linear_keys(mat, indices)
    perm = jnp.argsort(key, axis=-1, stable=True)
    indices = jnp.take_along_axis(indices, perm[..., None], axis=-2)
    data = jnp.take_along_axis(data, perm.reshape(perm.shape + (1,) * mat.n_dense), axis=mat.n_batch)
    return BCOO((data, indices), shape=mat.shape, indices_sorted=True,
                unique_indices=mat.unique_indices)


def bcoo_sum_duplicates(mat: BCOO, nse=None) -> BCOO:
    """`mat` with duplicate indices summed and indices sorted (JAX's
    `sparse.bcoo_sum_duplicates`): `nse` entries (default: the largest count of
    distinct indices, which needs concrete indices), padded at out-of-range indices."""
    if nse is None:
        distinct = _distinct_counts(mat)
        nse = distinct.max() if distinct.size else 0
    return _sum_duplicates(mat, nse=operator.index(nse))


def _sorted_keys(mat):
    """(data, indices, keys, the keys sorted, whether each sorted key is a new one, size)."""
    data, indices = _broadcast_buffers(mat)
    key, size = _linear_keys(mat, indices)
    sorted_key = jnp.sort(key, axis=-1)
    new = jnp.concatenate([jnp.ones(key.shape[:-1] + (1,), bool),
                           sorted_key[..., 1:] != sorted_key[..., :-1]], -1) if key.shape[-1] else jnp.zeros(key.shape, bool)
    return data, indices, key, sorted_key, new, size


@_compiled()
def _distinct_counts(mat):
    """The number of distinct in-range indices per batch."""
    _, _, _, sorted_key, new, size = _sorted_keys(mat)
    return (new & (sorted_key < size)).sum(-1)


@_compiled("nse")
def _sum_duplicates(mat, *, nse):
    data, _, key, _, new, size = _sorted_keys(mat)
    sparse_shape = mat.shape[mat.n_batch:mat.n_batch + mat.n_sparse]
    # an entry's output slot: the rank of its key among the distinct keys (the
    # out-of-range ones share the slot after the last, as JAX sums them there)
    rank = jnp.cumsum(new, -1) - 1
    pos = jnp.take_along_axis(rank, jnp.argsort(jnp.argsort(key, -1, stable=True), -1), -1)
    batch = mat.shape[:mat.n_batch]
    bcols = tuple(jnp.broadcast_to(jnp.arange(b).reshape((1,) * i + (b,) + (1,) * (mat.n_batch - i)),
                                   pos.shape) for i, b in enumerate(batch))
    out_data = jnp.zeros(batch + (nse,) + data.shape[mat.n_batch + 1:], data.dtype)
    out_data = out_data.at[bcols + (pos,)].add(data, mode="drop")
    out_key = jnp.full(batch + (nse,), size, key.dtype)
    out_key = out_key.at[bcols + (pos,)].min(key, mode="drop")
    out_idx = _indices_at(out_key, out_key < size, sparse_shape, mat.indices.dtype)
    return BCOO((out_data, out_idx), shape=mat.shape, indices_sorted=True, unique_indices=True)


def bcoo_eliminate_zeros(mat: BCOO, nse=None) -> BCOO:
    """`bcoo_sum_duplicates` after marking entries whose data is all zero as padding."""
    return bcoo_sum_duplicates(_zeros_as_padding(mat), nse=nse)


@_compiled()
def _zeros_as_padding(mat):
    """`mat` (no flags) with the entries whose data is all zero made padding."""
    zero = (mat.data == 0).all(tuple(range(mat.n_batch + 1, mat.data.ndim)))
    fill = jnp.asarray(mat.shape[mat.n_batch:mat.n_batch + mat.n_sparse], mat.indices.dtype)
    data, indices = _broadcast_buffers(mat)
    zero = jnp.broadcast_to(zero, indices.shape[:-1])
    indices = jnp.where(zero[..., None], fill, indices)
    return BCOO((data, indices), shape=mat.shape)


def _with_nse(mat, nse):
    """`mat` padded (zeros at out-of-range indices) or cut to `nse` entries."""
    if nse <= mat.nse:
        return BCOO((mat.data[(slice(None),) * mat.n_batch + (slice(nse),)],
                     mat.indices[..., :nse, :]), shape=mat.shape)
    pad = nse - mat.nse
    fill = jnp.asarray(mat.shape[mat.n_batch:mat.n_batch + mat.n_sparse], mat.indices.dtype)
    data = jnp.concatenate([mat.data, jnp.zeros(mat.data.shape[:mat.n_batch] + (pad,)
                                                + mat.data.shape[mat.n_batch + 1:], mat.dtype)],
                           mat.n_batch)
    indices = jnp.concatenate([mat.indices, jnp.broadcast_to(
        fill, mat.indices.shape[:mat.n_batch] + (pad, mat.n_sparse))], mat.n_batch)
    return BCOO((data, indices), shape=mat.shape)


@_compiled("dimension")
def bcoo_concatenate(operands, *, dimension: int) -> BCOO:
    """`lax.concatenate` of BCOO arrays along a batch or sparse `dimension` (JAX's
    `sparse.bcoo_concatenate`): batch axes join buffers (nse padded to the largest),
    sparse axes join entries with the index column offset."""
    dimension = operator.index(dimension)
    operands = list(operands)
    if not operands or not all(isinstance(op, BCOO) for op in operands):
        raise _JAXValueError("bcoo_concatenate: expected operands to be a sequence of BCOO "
                             f"arrays. Got {operands}")
    out_shape = _concatenated_shape(operands, dimension)
    if len({op.n_dense for op in operands}) > 1:
        raise _JAXValueError("bcoo_concatenate requires inputs to have matching nse dimensions.")
    if len({op.n_batch for op in operands}) > 1:
        raise _JAXValueError("bcoo_concatenate requires inputs to have matching batch dimensions.")
    nb, ns = operands[0].n_batch, operands[0].n_sparse
    drop = (lambda s: s[:dimension] + s[dimension + 1:]) if dimension < nb else (lambda s: s)
    if (len({drop(op.indices.shape[:nb]) for op in operands}) != 1
            or len({drop(op.data.shape[:nb]) for op in operands}) != 1):
        raise _NotImplementedInAstjax("concatenation of arrays with broadcasted batch indices")
    if dimension < nb:
        nse = max(op.nse for op in operands)
        operands = [_with_nse(op, nse) for op in operands]
        return BCOO((jnp.concatenate([op.data for op in operands], dimension),
                     jnp.concatenate([op.indices for op in operands], dimension)),
                    shape=out_shape)
    if dimension < nb + ns:
        offsets = np.cumsum([0] + [op.shape[dimension] for op in operands[:-1]])
        indices = [op.indices.at[..., dimension - nb].add(
            np.asarray(off, op.indices.dtype)) for op, off in zip(operands, offsets)]
        return BCOO((jnp.concatenate([op.data for op in operands], nb),
                     jnp.concatenate(indices, nb)), shape=out_shape)
    raise _NotImplementedInAstjax("Concatenation along dense dimensions.")


def _concatenated_shape(operands, dimension):
    """`lax.concatenate`'s result shape for the operands' shapes (its errors)."""
    stand_ins = [_ShapeDtypeStruct(op.shape, op.dtype) for op in operands]
    return _eval_shape(lambda *xs: lax.concatenate(xs, dimension), *stand_ins).shape


# ------------------------------------------------------------ contractions with dense arrays
def _index_tuple(dims):
    return tuple(operator.index(d) for d in dims)


# the contraction of two BCOO arrays: `_bcoo_products.bcoo_spdot_general`, registered
# there (it is built on this module's operations)
_SPARSE_SPARSE_DOT: dict = {}


def bcoo_dot_general(lhs, rhs, *, dimension_numbers, precision=None,
                     preferred_element_type=None, out_sharding=None):
    """`lax.dot_general` with BCOO operands (JAX's `sparse.bcoo_dot_general`): a
    sparse and a dense operand give a dense result, two sparse ones a BCOO result
    (`bcoo_spdot_general`); `precision` and `out_sharding` are unused, as there."""
    del precision, out_sharding
    (lc, rc), (lb, rb) = dimension_numbers
    lc, rc, lb, rb = map(_index_tuple, (lc, rc, lb, rb))
    if isinstance(lhs, BCOO) and isinstance(rhs, BCOO):
        return _SPARSE_SPARSE_DOT["rule"](lhs, rhs, dimension_numbers=((lc, rc), (lb, rb)),
                                          preferred_element_type=preferred_element_type)
    # (the dense operand an array here, not a list for `jit` to flatten into scalars)
    lhs, rhs = (x if isinstance(x, BCOO) else jnp.asarray(x) for x in (lhs, rhs))
    return _dot_with_dense(lhs, rhs, dimension_numbers=((lc, rc), (lb, rb)),
                           preferred_element_type=preferred_element_type)


@_compiled("dimension_numbers", "preferred_element_type")
def _dot_with_dense(lhs, rhs, *, dimension_numbers, preferred_element_type):
    """`bcoo_dot_general` with at most one BCOO operand."""
    (lc, rc), (lb, rb) = dimension_numbers
    if isinstance(lhs, BCOO):
        _validate(lhs)
        return _sparse_lhs(lhs, jnp.asarray(rhs), (lc, rc), (lb, rb), preferred_element_type)
    if isinstance(rhs, BCOO):
        lhs = jnp.asarray(lhs)
        _validate(rhs)
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


# -- vmap: a sparse array is mapped along one of its batch axes (JAX's vmappable types) ---

def _register_batch_vmappable(cls, dimension_word, keep_flags):
    """Register `cls` (BCOO, BCSR: its buffers are its pytree children, all batched alike)
    with `vmap`: mapped in or out along one of its leading batch axes, with JAX's
    ValueErrors naming `cls` ("a batch dimension" / "a batched dimension" as JAX words
    each); `keep_flags`: the per-example arrays keep `indices_sorted` / `unique_indices`
    (BCOO's; JAX's BCSR resets them)."""
    name = cls.__name__

    def rebuilt(val, buffers, shape):
        flags = ({"indices_sorted": val.indices_sorted, "unique_indices": val.unique_indices}
                 if keep_flags else {})
        return cls(tuple(buffers), shape=shape, **flags)

    def to_elt(cont, _size, val, axis):
        if axis is None:
            return val
        if not 0 <= axis < val.n_batch:
            raise _JAXValueError(
                f"Cannot map in_axis={axis} for {name} array with n_batch={val.n_batch}. "
                f"in_axes for batched {name} operations must correspond to "
                f"{dimension_word}.")
        return rebuilt(val, [cont(b, axis) for b in val.tree_flatten()[0]],
                       val.shape[:axis] + val.shape[axis + 1:])

    def from_elt(cont, size, elt, axis):
        if axis is None:
            return elt
        if not 0 <= axis <= elt.n_batch:
            raise _JAXValueError(
                f"{name}: cannot add out_axis={axis} for {name} array with "
                f"n_batch={elt.n_batch}. {name} batch axes must be a contiguous block of "
                "leading dimensions.")
        return rebuilt(elt, [cont(size, b, axis) for b in elt.tree_flatten()[0]],
                       elt.shape[:axis] + (size,) + elt.shape[axis:])

    _register_vmappable(cls, int, int, to_elt, from_elt, None)


_register_batch_vmappable(BCOO, "a batch dimension", keep_flags=True)
