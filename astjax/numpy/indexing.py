"""Indexing: `x[...]` with ints, slices, None, Ellipsis (static -> slice/squeeze),
staged scalar indices (-> dynamic_slice), integer arrays (-> gather), boolean masks
(static only: a staged mask raises NonConcreteBooleanIndexError), and `x.at[...]`."""
from __future__ import annotations

import numpy as np

from .. import core, dtypes, lax
from ..core import Tracer
from ..errors import ArgumentError, NonConcreteBooleanIndexError, ShapeError
from .creation import asarray


def _is_int_scalar(i):
    if isinstance(i, (bool, np.bool_)):
        return False
    if isinstance(i, (int, np.integer)):
        return True
    a = getattr(i, "aval", None)
    return a is not None and a.shape == () and dtypes.is_int(a.dtype)


def _is_array_index(i):
    if isinstance(i, (list, np.ndarray)):
        return True
    a = getattr(i, "aval", None)
    return a is not None and (a.shape != () or a.dtype == dtypes.bool_)


def _static_int(i):
    if isinstance(i, (int, np.integer)):
        return int(i)
    if isinstance(i, Tracer) and i.known is not None:
        return int(i.known)
    return None


def _expand(idx, ndim):
    if not isinstance(idx, tuple):
        idx = (idx,)
    # boolean masks consume as many axes as their rank
    n_used = 0
    for i in idx:
        if i is None or i is Ellipsis:
            continue
        a = getattr(i, "aval", None)
        if a is not None and a.dtype == dtypes.bool_ and a.shape != ():
            n_used += a.ndim
        elif isinstance(i, np.ndarray) and i.dtype == np.bool_:
            n_used += i.ndim
        else:
            n_used += 1
    if sum(1 for i in idx if i is Ellipsis) > 1:
        raise ArgumentError("an index can only have a single ellipsis ('...')")
    if Ellipsis in [i for i in idx if not hasattr(i, "shape") and not isinstance(i, list)]:
        k = [j for j, i in enumerate(idx) if i is Ellipsis][0]
        idx = idx[:k] + (slice(None),) * (ndim - n_used) + idx[k + 1:]
    elif n_used < ndim:
        idx = idx + (slice(None),) * (ndim - n_used)
    if n_used > ndim:
        raise ShapeError(f"too many indices for an array of rank {ndim}: {n_used} given")
    return idx


def _mask_to_indices(i):
    known = i.known if isinstance(i, Tracer) else np.asarray(i) if not hasattr(i, "_buf") else np.asarray(i)
    if known is None:
        raise NonConcreteBooleanIndexError(
            "a boolean mask whose values are only known when the function runs was used "
            "as an index: the result's shape would depend on the data")
    return [asarray(n.astype(np.int32)) for n in np.nonzero(np.asarray(known))]


def _getitem(x, idx):
    av = core.get_aval(x)
    idx = _expand(idx, av.ndim)
    # boolean masks -> integer index arrays (static masks only)
    flat = []
    for i in idx:
        a = getattr(i, "aval", None)
        is_mask = (a is not None and a.dtype == dtypes.bool_ and a.shape != ()) or (
            isinstance(i, (np.ndarray, list)) and np.asarray(i).dtype == np.bool_ and np.ndim(i) > 0)
        if is_mask:
            flat.extend(_mask_to_indices(i))
        else:
            flat.append(i)
    idx = tuple(flat)
    if any(_is_array_index(i) for i in idx):
        from .advanced_indexing import gather_index
        return gather_index(x, idx)
    # basic indexing: static slices, then dynamic scalar indices, then squeeze/newaxis
    starts, limits, strides, rev_axes = [], [], [], []
    dyn = []  # (axis, staged index)
    out_shape_ops = []  # per index entry: 'keep', 'squeeze', 'new'
    axis = 0
    for i in idx:
        if i is None:
            out_shape_ops.append(("new", None))
            continue
        n = av.shape[axis]
        if isinstance(i, slice):
            start, stop, step = (_slice_part(i.start), _slice_part(i.stop), _slice_part(i.step))
            s0, s1, st = slice(start, stop, step).indices(n)
            if st > 0:
                starts.append(s0)
                limits.append(max(s1, s0))
                strides.append(st)
            else:
                # reverse, then slice forward
                rev_axes.append(axis)
                length = len(range(s0, s1, st))
                rs = n - 1 - s0
                starts.append(rs)
                limits.append(rs + (length - 1) * (-st) + 1 if length else rs)
                strides.append(-st)
            out_shape_ops.append(("keep", axis))
        elif _is_int_scalar(i):
            s = _static_int(i)
            if s is not None:
                if not -n <= s < n:
                    raise ShapeError(f"index {s} is out of bounds for axis {axis} with size {n}")
                s %= n
                starts.append(s)
                limits.append(s + 1)
            else:
                dyn.append((axis, i))
                starts.append(0)
                limits.append(n)
            strides.append(1)
            out_shape_ops.append(("squeeze", axis))
        else:
            raise ArgumentError(f"invalid index {i!r:.60} of type {type(i).__name__}",
                                hint="use ints, slices, None, ..., or integer arrays")
        axis += 1
    y = x
    if rev_axes:
        y = lax.rev(y, rev_axes)
    if any(s != 0 for s in starts) or any(l != d for l, d in zip(limits, av.shape)) or any(
            st != 1 for st in strides):
        y = lax.slice(y, starts, limits, strides if any(st != 1 for st in strides) else None)
    if dyn:
        ya = core.get_aval(y)
        idxs = [np.int32(0)] * ya.ndim
        sizes = list(ya.shape)
        for ax, i in dyn:
            i = lax._index_scalar(i)
            n = ya.shape[ax]
            ia = core.get_aval(i)
            i = lax.select(lax.lt(i, np.asarray(0, ia.dtype)[()]),
                           lax.add(i, np.asarray(n, ia.dtype)[()]), i)
            idxs[ax] = i
            sizes[ax] = 1
        idxs = [lax.convert_element_type(i, dtypes.int32) if getattr(i, "aval", None) is not None
                and core.get_aval(i).dtype != dtypes.int32 and isinstance(i, Tracer) else i for i in idxs]
        y = lax.dynamic_slice(y, idxs, sizes)
    squeeze_axes = [ax for op, ax in out_shape_ops if op == "squeeze"]
    if squeeze_axes:
        y = lax.squeeze(y, squeeze_axes)
    if any(op == "new" for op, _ in out_shape_ops):
        shape, k = [], 0
        ys = core.get_aval(y).shape
        for op, _ in out_shape_ops:
            if op == "new":
                shape.append(1)
            elif op == "keep":
                shape.append(ys[k])
                k += 1
        shape.extend(ys[k:])
        y = lax.reshape(y, tuple(shape))
    return y


def _slice_part(v):
    if v is None:
        return None
    s = _static_int(v)
    if s is None:
        from ..errors import ConcretizationError
        raise ConcretizationError("slice bounds must be static: the slice's length is part of "
                                  "the result's shape",
                                  hint="use lax.dynamic_slice(x, (start,), (size,)) for a "
                                       "staged start with a static size")
    return s


def take(a, indices, axis=None, mode=None, fill_value=None):
    from .advanced_indexing import take as _take
    return _take(a, indices, axis, mode, fill_value)


def take_along_axis(arr, indices, axis, mode=None, fill_value=None):
    from .advanced_indexing import take_along_axis as tal
    return tal(arr, indices, axis)


class _IndexUpdateHelper:
    """`x.at[idx]`: functional updates through scatter."""
    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, idx):
        return _IndexUpdateRef(self.array, idx)


class _IndexUpdateRef:
    __slots__ = ("array", "index")

    def __init__(self, array, index):
        self.array, self.index = array, index

    def get(self, **kw):
        return _getitem(self.array, self.index)

    def _scatter(self, kind, values, **kw):
        from .advanced_indexing import scatter_index
        return scatter_index(self.array, self.index, values, kind, kw.get("mode"))

    def set(self, values, **kw):
        return self._scatter("set", values, **kw)

    def add(self, values, **kw):
        return self._scatter("add", values, **kw)

    def subtract(self, values, **kw):
        from .ufuncs import negative
        return self._scatter("add", negative(asarray(values)))

    def mul(self, values, **kw):
        return self._scatter("mul", values, **kw)

    multiply = mul

    def divide(self, values, **kw):
        from .ufuncs import reciprocal
        return self._scatter("mul", reciprocal(asarray(values)))

    def min(self, values, **kw):
        return self._scatter("min", values, **kw)

    def max(self, values, **kw):
        return self._scatter("max", values, **kw)

    def power(self, values, **kw):
        from .ufuncs import power
        return self.set(power(self.get(), values))

    def apply(self, func, **kw):
        return self.set(func(self.get()))


def nonzero(a, *, size=None, fill_value=None):
    from .sorting import nonzero as _nonzero
    return _nonzero(a, size=size, fill_value=fill_value)
