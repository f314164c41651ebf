"""`lax`'s structural functions on arrays of an extended dtype (user `ExtendedDType`s with
rules -- flax's fp8 `fm32` -- and typed PRNG keys), as JAX's rules give them: each is the
same function of the array's *data*, the element axes of the representation kept last
(`lax.reshape(e, (3, 2))` reshapes the data to `(3, 2, *element shape)`), and the result
is an array of the same extended dtype again.

An array of an extended dtype is a staging leaf (`tree_util.register_staging_leaf`):
`tree_util.flatten_for_staging` gives its data, `tree_unflatten` rebuilds it over new
data, eagerly and under `jit` / `vmap` / `grad` alike. Every wrapper here passes an
operand of an ordinary dtype straight to the primitive's own wrapper.
"""
from __future__ import annotations

import operator

from . import core, dtypes, tree_util
from .errors import ArgumentTypeError, ArgumentValueError
from .primitives import ops as _ops

__all__ = ["reshape", "transpose", "broadcast_in_dim", "broadcast", "expand_dims", "squeeze",
           "rev", "slice", "dynamic_slice", "dynamic_update_slice", "concatenate", "select_n",
           "select", "slice_in_dim", "index_in_dim", "dynamic_slice_in_dim",
           "dynamic_index_in_dim", "dynamic_update_slice_in_dim",
           "dynamic_update_index_in_dim"]

_extended = dtypes.has_extended_dtype


def _documented_as(wrapper):
    """Give the lifted function the primitive wrapper's docstring (what it means is
    JAX's; on an extended dtype it is that of the data, as the module says)."""
    def set_doc(f):
        f.__doc__ = wrapper.__doc__
        return f
    return set_doc


class Physical:
    """An extended-dtype array `x` as its data: `Physical(x).data` (`data`), its logical rank (`n`), the element
    axes' shape (`element`), and `rebuild(data)`: the array of its dtype over data."""
    __slots__ = ("data", "n", "element", "_tree")

    def __init__(self, x):
        [self.data], self._tree = tree_util.flatten_for_staging(x)
        self.n = len(x.shape)
        self.element = tuple(core.get_aval(self.data).shape[self.n:])

    @property
    def k(self):
        return len(self.element)

    def rebuild(self, data):
        return tree_util.tree_unflatten(self._tree, [data])


def _axis(d, n, what):
    """A logical axis in [0, n) (negative counting from the end): an element axis is
    never reachable from outside."""
    d = operator.index(d)
    if not -n <= d < n:
        raise ArgumentValueError(f"{what}: axis {d} is out of bounds for an array of an "
                                 f"extended dtype of rank {n}")
    return d % n


def _same_dtype(arrays, what):
    """The arrays' one extended dtype (JAX's TypeError for a mix)."""
    dts = {getattr(a, "dtype", None) for a in arrays}
    if len(dts) != 1 or not all(_extended(a) for a in arrays):
        raise ArgumentTypeError(f"{what} requires arguments to have the same dtypes, got "
                                f"{', '.join(str(getattr(a, 'dtype', type(a).__name__)) for a in arrays)}")


@_documented_as(_ops.reshape)
def reshape(operand, new_sizes, dimensions=None, out_sharding=None):
    if not _extended(operand):
        return _ops.reshape(operand, new_sizes, dimensions, out_sharding)
    p = Physical(operand)
    data = p.data
    if dimensions is not None:
        data = _ops.transpose(data, tuple(_axis(d, p.n, "reshape") for d in dimensions)
                              + tuple(range(p.n, p.n + p.k)))
    sizes = (new_sizes,) if not isinstance(new_sizes, (tuple, list)) else tuple(new_sizes)
    return p.rebuild(_ops.reshape(data, sizes + p.element, None, out_sharding))


@_documented_as(_ops.transpose)
def transpose(operand, permutation):
    if not _extended(operand):
        return _ops.transpose(operand, permutation)
    p = Physical(operand)
    if len(permutation) != p.n:
        raise ArgumentValueError(f"transpose permutation isn't a permutation of operand "
                                 f"dimensions, got permutation {tuple(permutation)} for "
                                 f"operand shape {tuple(operand.shape)}.")
    perm = tuple(_axis(d, p.n, "transpose") for d in permutation)
    return p.rebuild(_ops.transpose(p.data, perm + tuple(range(p.n, p.n + p.k))))


@_documented_as(_ops.broadcast_in_dim)
def broadcast_in_dim(operand, shape, broadcast_dimensions, out_sharding=None):
    if not _extended(operand):
        return _ops.broadcast_in_dim(operand, shape, broadcast_dimensions, out_sharding)
    p = Physical(operand)
    shape = tuple(shape)
    dims = tuple(broadcast_dimensions) + tuple(range(len(shape), len(shape) + p.k))
    return p.rebuild(_ops.broadcast_in_dim(p.data, shape + p.element, dims, out_sharding))


@_documented_as(_ops.broadcast)
def broadcast(operand, sizes, *, out_sharding=None):
    if not _extended(operand):
        return _ops.broadcast(operand, sizes, out_sharding=out_sharding)
    p = Physical(operand)
    return p.rebuild(_ops.broadcast(p.data, sizes, out_sharding=out_sharding))


def _on_axes(f, x, dimensions, added=0):
    """`f(x, dimensions)` (expand_dims, squeeze, rev: logical axes of a result of rank
    `x.ndim + added`) of an extended dtype's data; else of `x`."""
    if not _extended(x):
        return f(x, dimensions)
    p = Physical(x)
    n = p.n + added
    return p.rebuild(f(p.data, tuple(_axis(d, n, f.__name__) for d in dimensions)))


@_documented_as(_ops.expand_dims)
def expand_dims(array, dimensions):
    if not _extended(array):   # (whatever `dimensions` is: the primitive's checks)
        return _ops.expand_dims(array, dimensions)
    return _on_axes(_ops.expand_dims, array, dimensions, len(dimensions))


@_documented_as(_ops.squeeze)
def squeeze(array, dimensions):
    return _on_axes(_ops.squeeze, array, dimensions)


@_documented_as(_ops.rev)
def rev(operand, dimensions):
    return _on_axes(_ops.rev, operand, dimensions)


@_documented_as(_ops.slice)
def slice(operand, start_indices, limit_indices, strides=None):  # noqa: A001
    if not _extended(operand):
        return _ops.slice(operand, start_indices, limit_indices, strides)
    p = Physical(operand)
    _rank("slice", start_indices, p)
    return p.rebuild(_ops.slice(
        p.data, tuple(start_indices) + (0,) * p.k, tuple(limit_indices) + p.element,
        None if strides is None else tuple(strides) + (1,) * p.k))


def _rank(what, indices, p):
    if len(indices) != p.n:
        raise ArgumentTypeError(f"{what}: {len(indices)} indices for an array of an extended "
                                f"dtype of rank {p.n}")


def _starts(start_indices, p, what):
    starts = list(start_indices) if not hasattr(start_indices, "shape") or \
        len(start_indices.shape) else [start_indices]
    _rank(what, starts, p)
    return starts + [0] * p.k


@_documented_as(_ops.dynamic_slice)
def dynamic_slice(operand, start_indices, slice_sizes, *, allow_negative_indices=True):
    if not _extended(operand):
        return _ops.dynamic_slice(operand, start_indices, slice_sizes,
                                  allow_negative_indices=allow_negative_indices)
    p = Physical(operand)
    return p.rebuild(_ops.dynamic_slice(
        p.data, _starts(start_indices, p, "dynamic_slice"), tuple(slice_sizes) + p.element,
        allow_negative_indices=allow_negative_indices))


@_documented_as(_ops.dynamic_update_slice)
def dynamic_update_slice(operand, update, start_indices, *, allow_negative_indices=True):
    if not (_extended(operand) or _extended(update)):
        return _ops.dynamic_update_slice(operand, update, start_indices,
                                         allow_negative_indices=allow_negative_indices)
    _same_dtype((operand, update), "dynamic_update_slice")
    p = Physical(operand)
    return p.rebuild(_ops.dynamic_update_slice(
        p.data, Physical(update).data, _starts(start_indices, p, "dynamic_update_slice"),
        allow_negative_indices=allow_negative_indices))


@_documented_as(_ops.concatenate)
def concatenate(operands, dimension):
    operands = list(operands)
    if not any(_extended(a) for a in operands):
        return _ops.concatenate(operands, dimension)
    _same_dtype(operands, "concatenate")
    ps = [Physical(a) for a in operands]
    dim = _axis(dimension, ps[0].n, "concatenate")
    return ps[0].rebuild(_ops.concatenate([p.data for p in ps], dim))


@_documented_as(_ops.select_n)
def select_n(which, *cases):
    if not any(_extended(c) for c in cases):
        return _ops.select_n(which, *cases)
    _same_dtype(cases, "select_n")
    ps = [Physical(c) for c in cases]
    p = ps[0]
    w_shape = tuple(core.get_aval(which).shape)
    if w_shape and p.k:
        if w_shape != tuple(cases[0].shape):
            raise ArgumentTypeError(f"select_n: which must be scalar or have the same shape "
                                    f"as cases, got which shape {w_shape} but case shape "
                                    f"{tuple(cases[0].shape)}.")
        which = _ops.broadcast_in_dim(which, w_shape + p.element, tuple(range(p.n)))
    return p.rebuild(_ops.select_n(which, *[q.data for q in ps]))


@_documented_as(_ops.select)
def select(pred, on_true, on_false):
    if not (_extended(on_true) or _extended(on_false)):
        return _ops.select(pred, on_true, on_false)
    return select_n(pred, on_false, on_true)


def _along(f, operand, axis, *args, **kwargs):
    """`f(operand, *args, axis=axis, **kwargs)` of an extended dtype's data (an
    `*_in_dim` function: one logical axis, the element axes untouched)."""
    p = Physical(operand)
    return p.rebuild(f(p.data, *args, axis=_axis(axis, p.n, f.__name__), **kwargs))


@_documented_as(_ops.slice_in_dim)
def slice_in_dim(operand, start_index, limit_index, stride=1, axis=0):
    if not _extended(operand):
        return _ops.slice_in_dim(operand, start_index, limit_index, stride, axis)
    return _along(_ops.slice_in_dim, operand, axis, start_index, limit_index, stride)


@_documented_as(_ops.index_in_dim)
def index_in_dim(operand, index, axis=0, keepdims=True):
    if not _extended(operand):
        return _ops.index_in_dim(operand, index, axis, keepdims)
    return _along(_ops.index_in_dim, operand, axis, index, keepdims=keepdims)


@_documented_as(_ops.dynamic_slice_in_dim)
def dynamic_slice_in_dim(operand, start_index, slice_size, axis=0, *,
                         allow_negative_indices=True):
    if not _extended(operand):
        return _ops.dynamic_slice_in_dim(operand, start_index, slice_size, axis,
                                         allow_negative_indices=allow_negative_indices)
    return _along(_ops.dynamic_slice_in_dim, operand, axis, start_index, slice_size,
                  allow_negative_indices=allow_negative_indices)


@_documented_as(_ops.dynamic_index_in_dim)
def dynamic_index_in_dim(operand, index, axis=0, keepdims=True, *,
                         allow_negative_indices=True):
    if not _extended(operand):
        return _ops.dynamic_index_in_dim(operand, index, axis, keepdims,
                                         allow_negative_indices=allow_negative_indices)
    return _along(_ops.dynamic_index_in_dim, operand, axis, index, keepdims=keepdims,
                  allow_negative_indices=allow_negative_indices)


def _update_along(f, operand, update, where, axis, allow_negative_indices):
    """`f(operand, update, where, axis)` (a `dynamic_update_*_in_dim` function) of the
    data of both, when either is of an extended dtype; else of them."""
    if not (_extended(operand) or _extended(update)):
        return f(operand, update, where, axis, allow_negative_indices=allow_negative_indices)
    _same_dtype((operand, update), f.__name__)
    p = Physical(operand)
    return p.rebuild(f(p.data, Physical(update).data, where, _axis(axis, p.n, f.__name__),
                       allow_negative_indices=allow_negative_indices))


@_documented_as(_ops.dynamic_update_slice_in_dim)
def dynamic_update_slice_in_dim(operand, update, start_index, axis, *,
                                allow_negative_indices=True):
    return _update_along(_ops.dynamic_update_slice_in_dim, operand, update, start_index,
                         axis, allow_negative_indices)


@_documented_as(_ops.dynamic_update_index_in_dim)
def dynamic_update_index_in_dim(operand, update, index, axis, *,
                                allow_negative_indices=True):
    return _update_along(_ops.dynamic_update_index_in_dim, operand, update, index, axis,
                         allow_negative_indices)
