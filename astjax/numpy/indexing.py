"""Indexing: `x[...]` with ints, slices, None, Ellipsis (static -> slice/squeeze),
staged scalar indices (-> dynamic_slice), integer arrays (-> gather), boolean masks
(static only: a staged mask raises NonConcreteBooleanIndexError), and `x.at[...]`."""
from __future__ import annotations

import numpy as np

from .. import core, dtypes, lax
from ..core import Tracer
from ..errors import ArgumentIndexError, ArgumentTypeError, JAXAttributeError
from .advanced_indexing import (_is_array_index, _is_int_scalar, _normalize_index, slice_indices,
                                _static_int, gather_index, scatter_index,
                                take, take_along_axis)  # noqa: F401  (jnp.take, take_along_axis)
from ..primitives.scatter import apply_times as _apply_times
from ..primitives.spmd import reshard as _reshard
from ..primitives.structural import out_layout as _out_layout
from .operands import asarray
from .ufuncs import power, true_divide


def _partial_on_devices(x, av, idx):
    """JAX indexes an array laid out over several devices (outside `jit`) with an
    integer or a partial slice by one gather, not a slice: the gather's layout rule
    then decides the result's layout (or asks for `out_sharding`)."""
    if isinstance(x, Tracer) or getattr(getattr(x, "sharding", None), "num_devices", 1) <= 1:
        return False
    axis = 0
    for i in idx:
        if i is None:
            continue
        if _is_int_scalar(i):
            return True
        if isinstance(i, slice):
            n = av.shape[axis]
            start, stop, step = i.indices(n)
            if abs(step) != 1 or abs(stop - start) != n:
                return True
        axis += 1
    return False


class Slice:
    """`jax.ds(start, size, stride)`: `size` elements from `start` (static or staged)
    every `stride`; as an index, a dynamic slice (a negative start counts from the end,
    then the window is clamped into the axis, as `lax.dynamic_slice`)."""
    __slots__ = ("start", "size", "stride")

    def __init__(self, start, size, stride=1):
        if stride < 0:
            raise ValueError("`stride` must be >= 0.")
        self.start, self.size, self.stride = start, size, stride

    def __repr__(self):
        return f"Slice(start={self.start}, size={self.size}, stride={self.stride})"


def ds(start, size=None, stride=None):
    """JAX's `jax.ds` / `dslice`: `ds(None)` is `:`, `ds(j)` is `:j`, `ds(i, n)` is
    `i:i+n` and `ds(i, n, s)` is `i:i+n:s`, `i` may be staged (`x[ds(i, 2)]` under
    `jit`); `n` and `s` are static."""
    if start is None:
        return slice(None)
    if stride is None:
        stride = 1
    if not isinstance(stride, int):
        raise ValueError("Non-static stride in `dslice`")
    return Slice(0, start, stride) if size is None else Slice(start, size, stride)


def _entries(idx):
    return idx if isinstance(idx, tuple) else (idx,)


def _map_slices(x, idx, fn):
    """(`x`, `idx`) with each `Slice` entry replaced through `fn(x, entry, axis, n,
    span) -> (x, new entry)`; `n` is the axis size, `span` the window's length."""
    entries = _entries(idx)
    used = sum(i is not None and i is not Ellipsis for i in entries)
    axis, out = 0, []
    for i in entries:
        if i is Ellipsis:
            axis += core.get_aval(x).ndim - used
        elif isinstance(i, Slice):
            span = (int(i.size) - 1) * i.stride + 1 if int(i.size) > 0 else 0
            x, i = fn(x, i, axis, core.get_aval(x).shape[axis], span)
        if i is not None and i is not Ellipsis:
            axis += 1
        out.append(i)
    return x, tuple(out)


def _dynamic_slice(x, s, axis, n, span, wrap=True):
    """`x[..., s, ...]` for `Slice` `s` on `axis`: a dynamic slice (a negative start
    counts from the end where `wrap`; the window is clamped into the axis), then the
    stride."""
    x = lax.dynamic_slice_in_dim(x, asarray(s.start), span, axis, allow_negative_indices=wrap)
    return (lax.slice_in_dim(x, 0, span, s.stride, axis) if s.stride > 1 else x), slice(None)


def _window_indices(x, s, axis, n, span):
    """The positions `Slice` `s` covers, as an integer array for `x.at[...]`; all out
    of range (so dropped, as JAX's scatter drops the window) when the window does not
    fit the axis (a negative start does not count from the end here)."""
    start = lax.convert_element_type(asarray(s.start), np.int32)
    inside = lax.bitwise_and(lax.ge(start, np.int32(0)),
                             lax.le(lax.add(start, np.int32(span)), np.int32(n)))
    i = lax.add(start, lax.iota(np.int32, int(s.size)) * s.stride)
    return x, lax.select(lax.broadcast_in_dim(inside, i.shape, ()), i, lax.full_like(i, n))


def _slice_indices(x, idx):
    """`idx` for `x.at[idx]` with its `Slice` entry as `_window_indices`; only where
    that entry is the index's one non-slice entry, so that the array's axis stays in
    place."""
    entries = _entries(idx)
    if sum(isinstance(i, Slice) for i in entries) > 1 or any(
            not isinstance(i, (slice, Slice)) and i is not None and i is not Ellipsis
            for i in entries):
        raise ArgumentTypeError("x.at[...] with a jax.ds entry takes only slices, None and "
                                "Ellipsis beside it", hint="index with x.at[ds(...)] alone, "
                                "or use lax.dynamic_update_slice")
    return _map_slices(x, idx, _window_indices)[1]


def _getitem(x, idx, mode=None, fill_value=None, wrap=True):
    """`x[idx]`; with `mode` / `fill_value` (`x.at[idx].get(...)`) always one gather.
    `wrap=False` (`wrap_negative_indices=False`): a negative index is out of bounds
    (clamped, or filled under mode 'fill'), not counted from the end."""
    if any(isinstance(i, Slice) for i in _entries(idx)):
        x, idx = _map_slices(x, idx, lambda *a: _dynamic_slice(*a, wrap=wrap))
    av = core.get_aval(x)
    idx = _normalize_index(x, idx)  # static boolean masks -> integer index arrays
    if (mode is not None or fill_value is not None or any(_is_array_index(i) for i in idx)
            or _partial_on_devices(x, av, idx)):
        return gather_index(x, idx, mode, fill_value, wrap=wrap)
    if _staged_scalar_index(idx) and all(isinstance(d, int) for d in av.shape):
        return _staged_dynamic_slice(x, av, idx, wrap)
    # basic indexing: static slices, then dynamic scalar indices, then squeeze/newaxis
    starts, limits, strides, rev_axes = [], [], [], []
    dyn = []  # (axis, staged index)
    out_shape_ops = []  # per index entry: 'keep', 'squeeze', 'new'
    for i, axis, n in _per_axis(av, idx, out_shape_ops):
        if isinstance(i, slice):
            s0, s1, st = slice_indices(i, n)
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
                if n == 0:
                    raise ArgumentIndexError(f"index {s} is out of bounds for axis {axis} with "
                                             f"size 0", hint="this axis has no elements")
                # as JAX: a negative index counts from the end, then clamps into range
                s = min(max(s + n if s < 0 and wrap else s, 0), n - 1)
                starts.append(s)
                limits.append(s + 1)
            else:
                dyn.append((axis, i))
                starts.append(0)
                limits.append(n)
            strides.append(1)
            out_shape_ops.append(("squeeze", axis))
        else:
            raise ArgumentTypeError(f"invalid index {i!r:.60} of type {type(i).__name__}",
                                hint="use ints, slices, None, ..., or integer arrays")
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
            idxs[ax] = lax._index_scalar(i)
            sizes[ax] = 1
        idxs = [lax.convert_element_type(i, dtypes.int32) if getattr(i, "aval", None) is not None
                and core.get_aval(i).dtype != dtypes.int32 and isinstance(i, Tracer) else i for i in idxs]
        # (a negative index counts from the end where `wrap`)
        y = lax.dynamic_slice(y, idxs, sizes, allow_negative_indices=wrap)
    return _squeeze_and_expand(y, out_shape_ops)


def _per_axis(av, idx, ops):
    """(entry, axis, axis size) for each entry of `idx` but None, whose ("new", None)
    goes to `ops` (the result's axes, in order)."""
    axis = 0
    for i in idx:
        if i is None:
            ops.append(("new", None))
            continue
        yield i, axis, av.shape[axis]
        axis += 1


def _squeeze_and_expand(y, out_shape_ops):
    """`y` (one axis per indexed axis) with the integer-indexed axes squeezed out and
    the None entries' axes put in."""
    squeeze_axes = [ax for op, ax in out_shape_ops if op == "squeeze"]
    if squeeze_axes:
        y = lax.squeeze(y, squeeze_axes)
    kept = [op for op, _ in out_shape_ops if op in ("new", "keep")]
    if "new" in kept:   # (JAX's lax.expand_dims: a broadcast_in_dim)
        y = lax.expand_dims(y, [i for i, op in enumerate(kept) if op == "new"])
    return y


def _staged_scalar_index(idx):
    """Whether `x[idx]` is JAX's dynamic-slice indexing while staging: a staged integer
    scalar among ints, None and unit-step (or reversed unit-step) slices."""
    return any(isinstance(i, Tracer) and _static_int(i) is None and _is_int_scalar(i)
               for i in idx) and all(
        not isinstance(i, slice) or i.step is None or _static_int(i.step) in (1, -1)
        for i in idx)


def _staged_dynamic_slice(x, av, idx, wrap):
    """`x[idx]` as JAX stages it (see `_staged_scalar_index`): one dynamic_slice whose
    start per axis is the index (a static int as an int32 constant), or the slice's
    start, each counted from the end where negative (where `wrap`); then rev, squeeze
    and the new axes. (Eagerly `_getitem` slices the static entries first: fewer ops.)"""
    starts, sizes, rev_axes, ops = [], [], [], []
    for i, axis, n in _per_axis(av, idx, ops):
        if isinstance(i, slice):
            s0, s1, st = slice_indices(i, n)
            if st < 0:   # the window in increasing order, reversed after
                starts.append(s1 + 1)
                sizes.append(max(0, s0 - s1))
                rev_axes.append(axis)
            else:
                starts.append(s0)
                sizes.append(max(0, s1 - s0))
            ops.append(("keep", axis))
        else:
            if n == 0:   # (XLA cannot slice an empty axis: JAX's IndexError)
                raise ArgumentIndexError(f"index is out of bounds for axis {axis} with size 0",
                                         hint="this axis has no elements")
            starts.append(i)
            sizes.append(1)
            ops.append(("squeeze", axis))
    if len(starts) > 1:   # one dtype for all starts, as JAX's (a static int: a constant)
        starts = [lax.convert_element_type(int(s) if isinstance(s, (int, np.integer)) else s,
                                           np.int32) for s in starts]
    y = lax.dynamic_slice(x, starts, sizes, allow_negative_indices=wrap)
    if rev_axes:
        y = lax.rev(y, rev_axes)
    return _squeeze_and_expand(y, ops)


class _IndexUpdateHelper:
    """`x.at[idx]`: functional updates through scatter."""
    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, idx):
        return _IndexUpdateRef(self.array, idx)


class _IndexUpdateRef:
    """`x.at[idx]`: `get` and the scatter updates, with JAX's keyword arguments
    (`indices_are_sorted`, `unique_indices`: promises that only add to what the index
    itself shows; `mode`: 'drop' (the default for updates), 'clip', 'promise_in_bounds';
    `out_sharding`: the result's layout, see `_laid_out`)."""
    __slots__ = ("array", "index")

    def __init__(self, array, index):
        if any(isinstance(i, Slice) for i in _entries(index)):
            index = _slice_indices(array, index)
        self.array, self.index = array, index

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise JAXAttributeError(f"'_IndexUpdateRef' object has no attribute {name!r}",
                                hint="x.at[idx] has the methods get, set, add, subtract, "
                                     "multiply, divide, min, max, power, apply")

    def _laid_out(self, out_sharding, fn):
        """`fn(ref)` where JAX computes it over Auto axes and lays the result out as
        `out_sharding` (the way out of the gather / scatter layout errors): here the
        operand is replicated first, then the result resharded."""
        if out_sharding is None:
            return fn(self)
        s = _out_layout(out_sharding, "at")
        whole = _reshard(self.array, type(s)(s.mesh, type(s.spec)()))
        return _reshard(fn(_IndexUpdateRef(whole, self.index)), s)

    def get(self, *, indices_are_sorted=False, unique_indices=False, mode=None,
            fill_value=None, out_sharding=None, wrap_negative_indices=True):
        return self._laid_out(out_sharding, lambda r: _getitem(
            r.array, r.index, mode, fill_value, wrap=bool(wrap_negative_indices)))

    def _scatter(self, kind, values, indices_are_sorted, unique_indices, mode,
                 out_sharding=None, wrap=True):
        return self._laid_out(out_sharding, lambda r: scatter_index(
            r.array, r.index, values, kind, mode, indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices, wrap_negative_indices=wrap))

    def set(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            out_sharding=None, wrap_negative_indices=True):
        return self._scatter("set", values, indices_are_sorted, unique_indices, mode,
                             out_sharding, wrap_negative_indices)

    def add(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            out_sharding=None, wrap_negative_indices=True):
        return self._scatter("add", values, indices_are_sorted, unique_indices, mode,
                             out_sharding, wrap_negative_indices)

    def subtract(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
                 out_sharding=None, wrap_negative_indices=True):
        # (scatter_sub: the values cast to x's dtype, then subtracted -- a negated float
        # cast to an unsigned dtype would be 0)
        return self._scatter("sub", values, indices_are_sorted, unique_indices, mode,
                             out_sharding, wrap_negative_indices)

    def mul(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            out_sharding=None, wrap_negative_indices=True):
        return self._scatter("mul", values, indices_are_sorted, unique_indices, mode,
                             out_sharding, wrap_negative_indices)

    multiply = mul

    def divide(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
               out_sharding=None, wrap_negative_indices=True):
        return self._through_ones(true_divide, values, indices_are_sorted, unique_indices,
                                  mode, out_sharding, wrap_negative_indices)

    def _through_ones(self, op, values, indices_are_sorted, unique_indices, mode,
                      out_sharding, wrap):
        """`op(x, e)` with `e` ones of x's dtype where the values are multiplied in at
        idx, as JAX computes `divide` and `power`: an integer x divided gives floats, an
        element updated twice is divided (raised) once by the product of its values."""
        def fn(r):
            e = scatter_index(lax.full_like(r.array, 1), r.index, values, "mul", mode,
                              indices_are_sorted=indices_are_sorted,
                              unique_indices=unique_indices, wrap_negative_indices=wrap)
            return op(r.array, e)
        return self._laid_out(out_sharding, fn)

    def min(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            out_sharding=None, wrap_negative_indices=True):
        return self._scatter("min", values, indices_are_sorted, unique_indices, mode,
                             out_sharding, wrap_negative_indices)

    def max(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            out_sharding=None, wrap_negative_indices=True):
        return self._scatter("max", values, indices_are_sorted, unique_indices, mode,
                             out_sharding, wrap_negative_indices)

    def power(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
              out_sharding=None, wrap_negative_indices=True):
        return self._through_ones(power, values, indices_are_sorted, unique_indices, mode,
                                  out_sharding, wrap_negative_indices)

    def apply(self, func, *, indices_are_sorted=False, unique_indices=False, mode=None,
              wrap_negative_indices=True):
        """`func` applied at idx once per time idx names an element (JAX's
        scatter_apply: `x.at[[0, 0]].apply(f)` is f(f(x[0])) there), to each element on
        its own, as JAX's scatter region applies it to scalars."""
        kw = dict(indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                  mode=mode, wrap_negative_indices=wrap_negative_indices)
        each = lax._each_element(func, core.get_aval(asarray(self.array)).dtype,
                                  "x.at[idx].apply")
        if unique_indices or not any(_is_array_index(i)
                                     for i in _normalize_index(self.array, self.index)):
            return self.set(each(self.get(**kw)), **kw)   # (ints and slices: each once)
        x = asarray(self.array)
        times = scatter_index(lax.full(core.get_aval(x).shape, 0, np.int32), self.index,
                              np.int32(1), "add", mode,
                              wrap_negative_indices=wrap_negative_indices)
        return _apply_times(x, times, each)

