"""How a mutable array reference is indexed (`r[...]`, `r[0]`, `r[1:3, i]`,
`r[jnp.array([0, 2])]`): the `Indexer` an equation of `astjax/primitives/state.py`
carries, and what it means on the value a reference holds -- `read_value` (the
discharge of `get`) and `write_value` (of `swap` / `addupdate`). No primitive here.

An index is normalized to one entry per axis: `("s", start, size, stride)` a static
slice; `("i",)` an integer scalar; `("a", shape)` an integer array. Integers are operands
of the equation (a static one a literal, already made non-negative). Without arrays, a
read is a `dynamic_slice` (the start clamped into bounds, as JAX's discharge clamps)
and a write a `dynamic_update_slice`. With arrays (NumPy's advanced indexing: the
integers broadcast together, their axes placed where NumPy places them), a read is a
`gather` that clamps out-of-bounds indices and a write a `scatter` that drops them, as
`jnp`'s indexing and JAX's discharge of references do; negative indices count from the
end.
"""
from __future__ import annotations

import builtins

import numpy as np

from .. import core, dtypes
from ..errors import JAXIndexError, NotImplementedInAstjaxError
from .arithmetic import add
from .gather import GatherDimensionNumbers, GatherScatterMode, gather
from .scatter import ScatterDimensionNumbers, scatter, scatter_add
from .selection import select
from .slicing import dynamic_slice, dynamic_update_slice, slice as _lax_slice
from .concat_pad import concatenate, pad
from .structural import broadcast_in_dim, convert_element_type, full, reshape

__all__ = ["Indexer", "make_indexer", "np_index", "read_value", "write_value",
           "write_numpy"]


class Indexer:
    """A reference's index, one entry per axis (see the module docstring). Hashable (an
    equation parameter); printed as JAX prints its NDIndexer."""
    __slots__ = ("entries", "shape", "whole")

    def __init__(self, entries, shape, whole=False):
        self.entries, self.shape = tuple(entries), tuple(shape)
        self.whole = whole   # written `r[...]` (or no index): printed `[...]`

    def __eq__(self, other):
        return (isinstance(other, Indexer) and self.entries == other.entries
                and self.shape == other.shape and self.whole == other.whole)

    def __hash__(self):
        return hash((self.entries, self.shape, self.whole))

    def __repr__(self):
        return f"Indexer({self.entries})"

    @property
    def advanced(self) -> bool:
        """Whether an integer array is among the indices."""
        return any(e[0] == "a" for e in self.entries)

    @property
    def int_axes(self):
        return [k for k, e in enumerate(self.entries) if e[0] != "s"]

    @property
    def int_shape(self):
        """The broadcast shape of the integer indices."""
        return np.broadcast_shapes(*[e[1] if e[0] == "a" else () for e in self.entries
                                     if e[0] != "s"])

    def placement(self):
        """(where the integer indices' axes go in the result, slice sizes)."""
        axes = self.int_axes
        sizes = [e[2] for e in self.entries if e[0] == "s"]
        contiguous = axes == list(range(axes[0], axes[0] + len(axes))) if axes else True
        return (axes[0] if contiguous and axes else 0), sizes

    @property
    def out_shape(self):
        if not self.advanced:
            return tuple(e[2] for e in self.entries if e[0] == "s")
        at, sizes = self.placement()
        return tuple(sizes[:at]) + tuple(self.int_shape) + tuple(sizes[at:])

    def trivial(self):
        return all(e[0] == "s" and e[1] == 0 and e[2] == d and e[3] == 1
                   for e, d in zip(self.entries, self.shape))

    def slices_only(self):
        """This index with every integer axis taken whole."""
        return Indexer([e if e[0] == "s" else ("s", 0, d, 1)
                        for e, d in zip(self.entries, self.shape)], self.shape)

    def pretty(self, idx_docs):
        """`[...]`, or `[0]`, `[:,1:3]`, `[c]`: the text after the reference's name."""
        if self.whole:
            return "[...]"
        parts, k = [], 0
        for e, d in zip(self.entries, self.shape):
            if e[0] != "s":
                parts.append(idx_docs[k])
                k += 1
                continue
            _, start, size, stride = e
            end = start + (size - 1) * stride + 1 if size else start
            s = f"{start or ''}:{'' if end == d else end}"
            parts.append(s + (f":{stride}" if stride != 1 else ""))
        return "[" + ",".join(parts) + "]"


def _is_int_scalar(x):
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def make_indexer(shape, idx, what):
    """`idx` (what the user wrote between brackets) -> (Indexer, index operands)."""
    whole = idx is None or idx is Ellipsis or idx == () or (
        isinstance(idx, tuple) and len(idx) == 1 and idx[0] is Ellipsis)
    idx = () if idx is None else idx if isinstance(idx, tuple) else (idx,)
    if builtins.sum(i is Ellipsis for i in idx) > 1:
        raise JAXIndexError(f"{what}: an index can only have a single ellipsis ('...')")
    if any(i is Ellipsis for i in idx):
        k = next(j for j, i in enumerate(idx) if i is Ellipsis)
        idx = idx[:k] + (builtins.slice(None),) * (len(shape) - len(idx) + 1) + idx[k + 1:]
    if len(idx) > len(shape):
        raise JAXIndexError(f"{what}: too many indices for a reference of shape {shape}: "
                            f"{len(idx)} were given")
    idx = idx + (builtins.slice(None),) * (len(shape) - len(idx))
    entries, operands = [], []
    for i, d in zip(idx, shape):
        if isinstance(i, builtins.slice):
            if any(isinstance(b, core.Tracer) for b in (i.start, i.stop, i.step)):
                raise NotImplementedInAstjaxError(
                    f"{what}: a slice of a reference with staged bounds is not supported",
                    hint="use static slice bounds, or an integer index per element")
            start, stop, stride = i.indices(d)
            if stride < 0:
                raise NotImplementedInAstjaxError(
                    f"{what}: a negative slice step on a reference is not supported")
            entries.append(("s", start, len(range(start, stop, stride)), stride))
        elif _is_int_scalar(i):
            entries.append(("i",))
            operands.append(np.int32(int(i) + d if int(i) < 0 else int(i)))
        elif isinstance(i, (core.Tracer, list)) or hasattr(i, "dtype"):
            if isinstance(i, list):
                i = np.asarray(i)
            a = core.get_aval(i)
            if not dtypes.is_int(a.dtype):
                raise JAXIndexError(f"{what}: indices of a reference must be integers or "
                                    f"slices, got {a.str_short(True)}")
            entries.append(("a", a.shape) if a.shape else ("i",))
            operands.append(convert_element_type(i, np.int32)
                            if a.dtype != np.int32 or a.weak_type else i)
        else:
            raise JAXIndexError(f"{what}: indices of a reference must be integers, slices "
                                f"or '...', got {type(i).__name__} {i!r:.40}")
    indexer = Indexer(entries, shape, whole)
    if indexer.advanced:
        try:
            indexer.int_shape
        except ValueError:
            raise JAXIndexError(f"{what}: the integer indices' shapes do not broadcast "
                                f"together") from None
    return indexer, operands

# ---------------------------------------------------------------- the NumPy reference


def np_index(indexer, idx_vals, clip=True):
    """The NumPy index of `indexer` with the integer operands' values: negative ones
    counted from the end, then (`clip`) clamped into bounds."""
    out, k = [], 0
    for e, d in zip(indexer.entries, indexer.shape):
        if e[0] == "s":
            _, start, size, stride = e
            out.append(builtins.slice(start, start + size * stride, stride))
            continue
        i = np.asarray(idx_vals[k]).astype(np.int64)
        k += 1
        i = np.where(i < 0, i + d, i)
        i = np.clip(i, 0, d - 1) if clip else i
        out.append(int(i) if e[0] == "i" else i)
    return tuple(out)


def write_numpy(value, indexer, idx_vals, val, accumulate=False):
    """Store (or add) `val` into the NumPy array `value` in place, integer arrays
    element by element: an out-of-bounds index drops its element, a repeated one
    keeps the last store (adds all of them)."""
    if not indexer.advanced:
        where = np_index(indexer, idx_vals)
        if accumulate:
            value[where] += val
        else:
            value[where] = val
        return
    where = np_index(indexer, idx_vals, clip=False)
    axes, shape = indexer.int_axes, indexer.int_shape
    at, _ = indexer.placement()
    ints = [np.broadcast_to(where[k], shape) for k in axes]
    val = np.asarray(val)
    for b in np.ndindex(*shape):
        target = list(where)
        for k, arr in zip(axes, ints):
            target[k] = int(arr[b])
        if any(not 0 <= target[k] < indexer.shape[k] for k in axes):
            continue
        piece = val[(builtins.slice(None),) * at + b]
        if accumulate:
            value[tuple(target)] += piece
        else:
            value[tuple(target)] = piece

# ------------------------------------------------------------------ on staged values


def _window(indexer, idx_vals):
    """Start operands, window sizes and strides of a slices-and-scalars `indexer`."""
    starts, sizes, strides, k = [], [], [], 0
    for e, d in zip(indexer.entries, indexer.shape):
        if e[0] == "i":
            starts.append(_from_end(idx_vals[k], d))
            k += 1
            sizes.append(1)
            strides.append(1)
        else:
            _, start, size, stride = e
            starts.append(np.int32(start))
            sizes.append((size - 1) * stride + 1 if size else 0)
            strides.append(stride)
    return starts, sizes, strides


def _from_end(i, d):
    """A negative index counted from the end (a static one is normalized already)."""
    if isinstance(i, (np.integer, int)):
        return np.int32(i)
    return select(i < 0, add(i, np.int32(d)), i)


def read_value(x, indexer, idx_vals):
    """`x[index]` on the value a reference holds (the discharge of `get`)."""
    if indexer.trivial():
        return x
    if indexer.advanced:
        return _gather(indexer.slices_only(), x, indexer, idx_vals)
    starts, sizes, strides = _window(indexer, idx_vals)
    y = dynamic_slice(x, starts, sizes)
    if any(s != 1 for s in strides):
        y = _lax_slice(y, [0] * len(sizes), sizes, strides)
    return reshape(y, indexer.out_shape)


def write_value(x, indexer, idx_vals, v, accumulate=False):
    """`x` with `index` set to `v` (`accumulate`: `v` added there) -- the discharge of
    `swap` / `addupdate`."""
    if indexer.trivial():
        return add(x, v) if accumulate else v
    if indexer.advanced:
        outer = indexer.slices_only()
        window = read_value(x, outer, [])
        return write_value(x, outer, [], _scatter(window, indexer, idx_vals, v, accumulate))
    starts, sizes, strides = _window(indexer, idx_vals)
    kept = [1 if e[0] == "i" else e[2] for e in indexer.entries]
    v = reshape(v, kept)
    strided = any(s != 1 for s in strides)
    if strided:   # spread `v` over the window, zeros between its elements
        zero = full((), 0, core.get_aval(x).dtype)
        v = pad(v, zero, [(0, 0, s - 1) for s in strides])
    if accumulate or strided:
        cur = dynamic_slice(x, starts, sizes)
        if accumulate:
            v = add(cur, v)
        else:
            mask = np.zeros(sizes, bool)
            mask[tuple(builtins.slice(None, None, s) for s in strides)] = True
            v = select(broadcast_in_dim(mask, tuple(sizes), tuple(range(len(sizes)))), v, cur)
    return dynamic_update_slice(x, v, starts)


def _indices(indexer, idx_vals):
    """The integer indices, counted from the end when negative and broadcast together,
    stacked on a last axis (a gather's / scatter's index array), and the axes of the
    result that the slice axes take."""
    shape = tuple(indexer.int_shape)
    cols = []
    for k, i in zip(indexer.int_axes, idx_vals):
        i = _from_end(i, indexer.shape[k])
        n = len(core.get_aval(i).shape)
        i = broadcast_in_dim(i, shape, tuple(range(len(shape) - n, len(shape))))
        cols.append(reshape(i, shape + (1,)))
    idx = cols[0] if len(cols) == 1 else concatenate(cols, len(shape))
    at, sizes = indexer.placement()
    nb = len(shape)
    window_axes = tuple(range(at)) + tuple(range(at + nb, nb + len(sizes)))
    return idx, window_axes


def _gather(window_index, x, indexer, idx_vals):
    window = read_value(x, window_index, [])   # the static slices first
    idx, offset = _indices(indexer, idx_vals)
    axes = tuple(indexer.int_axes)
    sizes = [1 if k in axes else e[2] for k, e in enumerate(window_index.entries)]
    dn = GatherDimensionNumbers(offset_dims=offset, collapsed_slice_dims=axes,
                                start_index_map=axes)
    return gather(window, idx, dn, sizes, mode=GatherScatterMode.CLIP)


def _scatter(window, indexer, idx_vals, v, accumulate):
    idx, offset = _indices(indexer, idx_vals)
    axes = tuple(indexer.int_axes)
    dn = ScatterDimensionNumbers(update_window_dims=offset, inserted_window_dims=axes,
                                 scatter_dims_to_operand_dims=axes)
    return (scatter_add if accumulate else scatter)(window, idx, v, dn,
                                                    mode=GatherScatterMode.FILL_OR_DROP)
