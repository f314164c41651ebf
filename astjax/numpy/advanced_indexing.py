"""Index expressions, and NumPy advanced indexing onto one `gather` / `scatter`, as
JAX's `_index_to_gather`.

`_normalize_index(x, idx)` expands an index expression to one entry per axis
(Ellipsis, missing trailing axes) and turns static boolean masks into integer arrays
(a staged mask raises NonConcreteBooleanIndexError); `indexing._getitem` and
`scatter_index` start from it.

`gather_index(x, idx)` is `x[idx]` where `idx` (already expanded to one entry per
axis, boolean masks already turned into integer arrays) holds integer arrays mixed
with slices, None and integer scalars (static or staged). `scatter_index(x, idx,
values, kind)` is `x.at[idx].set/add/mul/min/max(values)`. `take_along_axis` is
NumPy's, on a gather with batching dimensions.

NumPy's rules: integer scalars count as advanced indices once any array index is
present; all advanced indices broadcast together to one shape B; B replaces the
advanced entries in the result where they are adjacent, and goes first when a
slice or None separates them. Negative indices wrap once (`i + n`).

The plan: every result axis is either a *window* (a unit-step slice: a gather
slice of static start and length) or a *point* axis (B, or a strided/reversed
slice turned into an `arange` index). Point axes become the gather/scatter batch
dims, windows its offset/update-window dims. Modes are JAX's: gathers from `x[idx]`
are PROMISE_IN_BOUNDS (XLA clamps), scatters FILL_OR_DROP (out-of-bounds updates are
dropped), `take_along_axis` FILL_OR_DROP (out-of-bounds reads give NaN / int min).
"""
from __future__ import annotations

import numpy as np

from .. import core, dtypes, lax, user_warnings
from ..core import Tracer
from ..errors import (ArgumentError, ArgumentIndexError, ArgumentTypeError,
                      ArgumentValueError, JAXIndexError, NonConcreteBooleanIndexError,
                      NotImplementedInAstjaxError, ShapeError, ShapeValueError,
                      StagedSliceError)
from ..primitives.gather import GatherDimensionNumbers, GatherScatterMode
from ..primitives.scatter import ScatterDimensionNumbers
from ..shape_poly import is_symbolic_dim, symbolic_slice_indices
from .operands import asarray, broadcast_shapes, broadcast_to_shape, promote_dtypes
from .util import canonicalize_axis, library_jit as _library_jit

__all__ = ["gather_index", "scatter_index", "take_along_axis", "take"]

# ------------------------------------------------------------- index expressions


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
        raise ArgumentIndexError("an index can only have a single ellipsis ('...')")
    if Ellipsis in [i for i in idx if not hasattr(i, "shape") and not isinstance(i, list)]:
        k = [j for j, i in enumerate(idx) if i is Ellipsis][0]
        idx = idx[:k] + (slice(None),) * (ndim - n_used) + idx[k + 1:]
    elif n_used < ndim:
        idx = idx + (slice(None),) * (ndim - n_used)
    if n_used > ndim:
        raise ArgumentIndexError(f"too many indices: the array is {ndim}-dimensional, but "
                                 f"{n_used} were indexed",
                                 hint="give at most one index per axis (None and ... add none)")
    return idx


def _mask_to_indices(i):
    known = i.known if isinstance(i, Tracer) else np.asarray(i) if not hasattr(i, "_buf") else np.asarray(i)
    if known is None:
        raise NonConcreteBooleanIndexError(
            "a boolean mask whose values are only known when the function runs was used "
            "as an index: the result's shape would depend on the data")
    return [asarray(n.astype(np.int32)) for n in np.nonzero(np.asarray(known))]


def _slice_part(v):
    if v is None or is_symbolic_dim(v):
        return v
    s = _static_int(v)
    if s is None and not isinstance(v, Tracer) and hasattr(v, "dtype"):
        # a concrete array bound (`x[:n]`, `n` a computed Array): its value, as JAX's
        # operator.index; anything but an integer scalar is JAX's TypeError
        if np.ndim(v) != 0 or not np.issubdtype(np.dtype(v.dtype), np.integer):
            raise ArgumentTypeError("Only integer scalar arrays can be converted to a scalar index.",
                                    hint="a slice bound is an int or a 0-d integer array")
        s = int(np.asarray(v))
    if s is None:  # JAX's IndexError: slice entries must be static integers
        raise StagedSliceError("slice bounds must be static integers: the slice's length is "
                               "part of the result's shape")
    return s


def slice_indices(i: slice, n: int):
    """(start, stop, step) of the slice `i` over an axis of size `n`, as
    `slice.indices`; a zero step is a located ValueError (Python's, as JAX's)."""
    start, stop, step = _slice_part(i.start), _slice_part(i.stop), _slice_part(i.step)
    if step == 0:
        raise ArgumentValueError("slice step cannot be zero", hint="use a nonzero step")
    if any(is_symbolic_dim(v) for v in (start, stop, n)):
        return symbolic_slice_indices(start, stop, step, n)
    return slice(start, stop, step).indices(n)



def _ravel(a):
    return lax.reshape(a, (core.get_aval(a).size,))

# ------------------------------------------------------------------ gather / scatter


def _is_static(v):
    return isinstance(v, (int, np.integer, np.ndarray, list))


def _index_dtype(advs):
    for _, v in advs:
        dt = np.asarray(v).dtype if _is_static(v) else core.get_aval(v).dtype
        if np.dtype(dt).itemsize == 8 and dtypes.canonicalize(dtypes.int64) == dtypes.int64:
            return dtypes.int64
    return dtypes.int32


def _normalize(v, n, idx_dtype, wrap=True):
    """An index array of `idx_dtype` with negative entries wrapped by `n` where `wrap`
    (else left negative: out of bounds, for the gather / scatter mode to handle)."""
    if _is_static(v):
        a = np.asarray(v)
        if a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.integer):
            raise ArgumentTypeError(f"indices must be integers, got an array of dtype {a.dtype}")
        a = a.astype(np.int64)
        return (np.where(a < 0, a + n, a) if wrap else a).astype(idx_dtype)
    v = asarray(v)
    a = core.get_aval(v)
    if not dtypes.is_int(a.dtype):
        raise ArgumentTypeError(f"indices must be integers, got an array of dtype {a.dtype}",
                            hint="convert with .astype(int), or use a boolean mask")
    if a.dtype != idx_dtype:
        v = lax.convert_element_type(v, idx_dtype)
    if wrap and dtypes.issubdtype(a.dtype, np.signedinteger):
        zero = np.asarray(0, idx_dtype)[()]
        nn = np.asarray(n, idx_dtype)[()]
        v = lax.select(lax.lt(v, zero), lax.add(v, nn), v)  # rank-0 literals, as JAX prints
    return v


class _Plan:
    """How `x[idx]` maps onto one gather: see the module docstring."""

    def __init__(self, shape, idx, wrap=True):
        self.shape = shape
        entries, advs, d = [], [], 0
        for i in idx:
            if i is None:
                entries.append(("new",))
                continue
            if d >= len(shape):
                raise ArgumentIndexError(f"too many indices for an array of rank {len(shape)}")
            n = shape[d]
            if isinstance(i, slice):
                s0, s1, st = slice_indices(i, n)
                rng = range(s0, s1, st)
                entries.append(("slice", d, rng))
            elif _is_int_scalar(i) or isinstance(i, (list, np.ndarray)) or isinstance(
                    getattr(i, "aval", None), core.ShapedArray):
                if n == 0 and (np.shape(i) if _is_static(i) else core.get_aval(i).shape) == ():
                    # JAX's check, for every mode (XLA cannot gather from an empty axis)
                    raise JAXIndexError(f"index is out of bounds for axis {d} with size 0",
                                        hint="this axis has no elements")
                entries.append(("adv", d))
                advs.append((d, i))
            else:
                raise ArgumentTypeError(f"invalid index {i!r:.60} of type {type(i).__name__}",
                                    hint="use ints, slices, None, ..., or integer arrays")
            d += 1
        self.entries = entries
        self.advs = advs
        self.idx_dtype = _index_dtype(advs)
        self.arrays = [(dd, _normalize(v, shape[dd], self.idx_dtype, wrap)) for dd, v in advs]
        self.bshape = broadcast_shapes(*(np.shape(a) if _is_static(a) else core.get_aval(a).shape
                                         for _, a in self.arrays)) if advs else ()
        pos = [k for k, e in enumerate(entries) if e[0] == "adv"]
        contiguous = not pos or pos == list(range(pos[0], pos[-1] + 1))
        # result axes (None axes included): ("new",), ("win", d, start, len),
        # ("pt", d, range) for strided slices, ("B", j) for the broadcast shape
        axes = [] if contiguous else [("B", j) for j in range(len(self.bshape))]
        for k, e in enumerate(entries):
            if e[0] == "new":
                axes.append(e)
            elif e[0] == "slice":
                rng = e[2]
                if rng.step == 1 or len(rng) <= 1:
                    axes.append(("win", e[1], rng.start if len(rng) else 0, len(rng)))
                else:
                    axes.append(("pt", e[1], rng))
            elif contiguous and k == pos[0]:
                axes.extend(("B", j) for j in range(len(self.bshape)))
        self.full_shape = tuple(1 if a[0] == "new" else a[3] if a[0] == "win" else
                                len(a[2]) if a[0] == "pt" else self.bshape[a[1]] for a in axes)
        self.axes = [a for a in axes if a[0] != "new"]
        self.shape_out = tuple(s for s, a in zip(self.full_shape, axes) if a[0] != "new")
        self.window_pos = [k for k, a in enumerate(self.axes) if a[0] == "win"]
        self.batch_axes = [a for a in self.axes if a[0] != "win"]
        self.batch_shape = tuple(self.shape_out[k] for k, a in enumerate(self.axes)
                                 if a[0] != "win")
        self.window_dims = [a[1] for a in self.axes if a[0] == "win"]

    def indices(self, force=False, staged=False):
        """(index array of batch_shape + (k,), operand dims it indexes); `staged` (while
        staging a scatter), static scalar indices as JAX stages them: each an int32
        constant put in by broadcast_in_dim (then concatenated), not one constant array."""
        bs, dt = self.batch_shape, self.idx_dtype
        comps, dims = [], []
        bpos = [k for k, a in enumerate(self.batch_axes) if a[0] == "B"]
        for d, a in self.arrays:
            shp = np.shape(a) if _is_static(a) else core.get_aval(a).shape
            lead = len(self.bshape) - len(shp)
            bdims = [bpos[lead + j] for j in range(len(shp))]
            if _is_static(a):
                rs = [1] * len(bs)
                for j, s in enumerate(shp):
                    rs[bdims[j]] = s
                full = np.broadcast_to(np.asarray(a).reshape(rs), bs)
                comps.append(np.array(full))
            else:
                keep = [j for j, s in enumerate(shp) if s == bs[bdims[j]]]
                if len(keep) != len(shp):
                    a = lax.reshape(a, tuple(shp[j] for j in keep))
                comps.append(lax.broadcast_in_dim(a, bs, tuple(bdims[j] for j in keep)))
            dims.append(d)
        for q, a in enumerate(self.batch_axes):
            if a[0] == "pt":
                r = np.asarray(a[2], dt).reshape([s if j == q else 1 for j, s in enumerate(bs)])
                comps.append(np.array(np.broadcast_to(r, bs)))
                dims.append(a[1])
        for a in self.axes:
            if a[0] == "win" and (a[2] != 0 or (force and not dims)):
                comps.append(np.full(bs, a[2], dt))
                dims.append(a[1])
        if not comps:
            return None, []
        if not self.bshape:   # no index array: JAX's order, that of the operand's axes
            comps, dims = map(list, zip(*sorted(zip(comps, dims), key=lambda cd: cd[1])))
        if all(isinstance(c, np.ndarray) for c in comps) and not (staged and bs == ()):
            return np.stack(comps, -1).astype(dt), dims
        parts = [lax.broadcast_in_dim(c if not isinstance(c, np.ndarray) else asarray(c),
                                      bs + (1,), tuple(range(len(bs)))) for c in comps]
        return lax.concatenate(parts, len(bs)), dims

    def slice_sizes(self):
        sizes = [1] * len(self.shape)
        for a in self.axes:
            if a[0] == "win":
                sizes[a[1]] = a[3]
        return sizes

    def collapsed(self):
        return tuple(d for d in range(len(self.shape)) if d not in self.window_dims)


def _normalize_index(x, idx):
    """Expand Ellipsis, pad with full slices, turn static boolean masks into arrays (a
    mask must have the shape of the axes it covers: JAX's IndexError otherwise)."""
    av = core.get_aval(x)
    idx = _expand(idx, av.ndim)
    flat, d = [], 0
    for k, i in enumerate(idx):
        a = getattr(i, "aval", None)
        is_mask = (a is not None and a.dtype == dtypes.bool_ and a.shape != ()) or (
            isinstance(i, (np.ndarray, list)) and np.asarray(i).dtype == np.bool_
            and np.ndim(i) > 0)
        if is_mask:
            shape = a.shape if a is not None else np.shape(i)
            if tuple(shape) != tuple(av.shape[d:d + len(shape)]):
                raise JAXIndexError(
                    f"boolean index did not match shape of indexed array in index {k}: got "
                    f"{tuple(shape)}, expected {list(av.shape[d:d + len(shape)])}",
                    hint="a boolean mask must have the shape of the axes it selects from")
            d += len(shape)
        elif i is not None:
            d += 1
        flat.extend(_mask_to_indices(i) if is_mask else [i])
    return tuple(flat)


def gather_index(x, idx, mode=None, fill_value=None, wrap=True):
    """`x[idx]` for an expanded index with at least one integer array (negative
    entries counted from the end where `wrap`)."""
    x = asarray(x)
    av = core.get_aval(x)
    plan = _Plan(av.shape, tuple(idx), wrap)
    if 0 in plan.full_shape:  # an empty result (also of an empty array): no gather, as JAX
        return lax.full(plan.full_shape, 0, av.dtype)
    indices, dims = plan.indices()
    if indices is None:  # only windows at offset 0 (a partial slice on several devices)
        sizes = plan.slice_sizes()
        if tuple(sizes) != av.shape:
            x = lax.slice(x, (0,) * av.ndim, tuple(sizes))
        return lax.reshape(x, plan.full_shape)
    dn = GatherDimensionNumbers(
        offset_dims=tuple(plan.window_pos), collapsed_slice_dims=plan.collapsed(),
        start_index_map=tuple(dims))
    mode = GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else mode
    out = lax.gather(x, indices, dn, plan.slice_sizes(), mode=mode, fill_value=fill_value)
    return lax.reshape(out, plan.full_shape)


def _warn_unsafe_cast(values, dtype):
    """JAX's FutureWarning when scattering `values` into an array of `dtype` loses
    information (its `safe_to_cast`)."""
    va = core.get_aval(asarray(values))
    if va.dtype != dtype and dtypes.result_type(values, dtype) != dtype:
        mode = dtypes.config.read("jax_numpy_dtype_promotion")
        user_warnings.warn(
            "scatter inputs have incompatible types: cannot safely cast value from "
            f"dtype={va.dtype} to dtype={np.dtype(dtype)} with "
            f"jax_numpy_dtype_promotion={mode}. In future JAX releases this will "
            "result in an error.", FutureWarning)


def _broadcast_values(v, full_shape):
    va = core.get_aval(v)
    # JAX broadcasts the values to the slice's shape without dropping leading 1s
    # (NumPy's `a[0] = ones((1,))` is JAX's ValueError), so neither do we
    if len(va.shape) > len(full_shape):
        raise ShapeValueError(f"cannot update a slice of shape {tuple(full_shape)} with "
                              f"values of shape {va.shape}: the values have more dimensions "
                              "than the slice", hint="reshape or index the values to the "
                              "slice's shape (e.g. v[0] or v.reshape(...))")
    try:
        return broadcast_to_shape(v, full_shape)
    except ShapeValueError:  # JAX's ValueError
        raise ShapeValueError(f"cannot update a slice of shape {full_shape} with values of shape "
                              f"{va.shape}: they do not broadcast") from None


_SIMPLE = {"set": lambda x, v: v, "add": lax.add, "sub": lax.sub, "mul": lax.mul,
           "min": lax.min, "max": lax.max}


def scatter_index(x, idx, values, kind, mode=None, *, indices_are_sorted=False,
                  unique_indices=False, wrap_negative_indices=True):
    """`x.at[idx].<kind>(values)`, kind in 'set', 'add', 'sub', 'mul', 'min', 'max'; `mode`
    as JAX's (None: out-of-bounds updates are dropped, 'clip' clamps them). Without
    integer-array indices the scattered points are unique and in increasing order (ints
    and increasing slices), so both flags are set, as JAX does: scatter_mul then has its
    update gradient (R9). The caller's flags are promises added on top.
    `wrap_negative_indices=False`: negative indices are out of bounds (dropped, or
    clamped under mode 'clip'), not counted from the end."""
    if kind not in _SIMPLE:
        raise ArgumentValueError(f"unknown update kind {kind!r}")
    x = asarray(x)
    av = core.get_aval(x)
    if (isinstance(values, int) and av.dtype.kind in "iu"
            and np.iinfo(av.dtype).min <= values <= np.iinfo(av.dtype).max):
        values = asarray(values, av.dtype)
    idx = _normalize_index(x, idx)
    plan = _Plan(av.shape, idx, bool(wrap_negative_indices))
    _warn_unsafe_cast(values, av.dtype)
    if 0 in plan.full_shape:   # as JAX: nothing is updated (values of any shape), x as is
        return x
    # as JAX: the update is computed in x's and the values' common dtype, then cast back
    # (uint8 200 .at[].subtract(2.5) is 197, not 200 - 2 or 200 + uint8(-2.5))
    xp, v = promote_dtypes(x, values)
    if av.ndim == 0:
        upd = lax.reshape(_broadcast_values(v, plan.full_shape), plan.shape_out)
        return _cast_back(_SIMPLE[kind](xp, upd), av)
    indices, dims = plan.indices(force=True, staged=isinstance(x, Tracer))
    # (the indices before the values' broadcast, as JAX)
    upd = lax.reshape(_broadcast_values(v, plan.full_shape), plan.shape_out)
    dn = ScatterDimensionNumbers(
        update_window_dims=tuple(plan.window_pos), inserted_window_dims=plan.collapsed(),
        scatter_dims_to_operand_dims=tuple(dims))
    fn = {"set": lax.scatter, "add": lax.scatter_add, "sub": lax.scatter_sub,
          "mul": lax.scatter_mul,
          "min": lax.scatter_min, "max": lax.scatter_max}[kind]
    basic = not any(_is_array_index(v) for _, v in plan.advs)
    increasing = all(a[2].step > 0 for a in plan.axes if a[0] == "pt")
    return _cast_back(fn(
        xp, indices, upd, dn, mode=GatherScatterMode.FILL_OR_DROP if mode is None else mode,
        indices_are_sorted=bool(indices_are_sorted) or (basic and increasing),
        unique_indices=bool(unique_indices) or basic), av)


def _cast_back(out, av):
    oa = core.get_aval(out)
    if oa.dtype == av.dtype and oa.weak_type == av.weak_type:
        return out
    return lax.convert_element_type(out, av.dtype, weak_type=av.weak_type)


@_library_jit(static_argnames=("axis", "mode", "fill_value", "wrap_negative_indices"),
              keep_call=True)
def take_along_axis(arr, indices, axis=-1, mode=None, fill_value=None, *,
                    wrap_negative_indices=None):
    """NumPy's take_along_axis; out-of-bounds indices read `fill_value` (JAX's
    default 'fill' mode: NaN for floats) unless mode='clip'. Negative indices count
    from the end unless `wrap_negative_indices=False` (default: except in mode
    'promise_in_bounds')."""
    arr, indices = asarray(arr), asarray(indices)
    if axis is None:
        if core.get_aval(indices).ndim != 1:   # (JAX's ValueError; raveling them hid it)
            raise ShapeValueError(f"take_along_axis indices must be 1D if axis=None, got "
                                  f"shape {core.get_aval(indices).shape}",
                                  hint="pass 1-D indices into the flattened array")
        arr, axis = _ravel(arr), 0
    aa, ia = core.get_aval(arr), core.get_aval(indices)
    if aa.ndim != ia.ndim:
        raise ShapeValueError(f"take_along_axis: indices and arr must have the same number "
                              f"of dimensions; {ia.ndim} vs. {aa.ndim}")
    axis = canonicalize_axis(axis, aa.ndim, "take_along_axis")
    idx_dtype = dtypes.int64 if ia.dtype == dtypes.int64 else dtypes.int32
    if wrap_negative_indices is None:
        wrap_negative_indices = mode != "promise_in_bounds"
    indices = _normalize(indices, aa.shape[axis], idx_dtype) if wrap_negative_indices else \
        lax.convert_element_type(indices, idx_dtype)
    out_shape = []
    for d in range(aa.ndim):
        if d == axis:
            out_shape.append(ia.shape[d])
        else:
            out_shape.append(broadcast_shapes((aa.shape[d],), (ia.shape[d],))[0])
    if aa.shape[axis] == 0:   # as JAX: from an empty axis, zeros of the result's shape
        return lax.full(tuple(out_shape), 0, aa.dtype)
    arr_shape = tuple(aa.shape[d] if d == axis else out_shape[d] for d in range(aa.ndim))
    arr = broadcast_to_shape(arr, arr_shape)
    indices = broadcast_to_shape(indices, tuple(out_shape))
    indices = lax.reshape(indices, tuple(out_shape) + (1,))
    others = tuple(d for d in range(aa.ndim) if d != axis)
    dn = GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(axis,),
                                start_index_map=(axis,), operand_batching_dims=others,
                                start_indices_batching_dims=others)
    mode = GatherScatterMode.FILL_OR_DROP if mode is None else mode
    # (a batching dimension of size 0 takes slices of size 0, as JAX's)
    sizes = [1 if d == axis or arr_shape[d] else 0 for d in range(aa.ndim)]
    return lax.gather(arr, indices, dn, sizes, mode=mode, fill_value=fill_value)


@_library_jit(static_argnames=("axis", "mode", "unique_indices", "indices_are_sorted",
                               "fill_value"))
def take(a, indices, axis=None, out=None, mode=None, unique_indices=False,
         indices_are_sorted=False, fill_value=None):
    """`jnp.take`: JAX's default mode is 'fill' (out-of-bounds reads give NaN / the
    integer minimum); 'clip' clamps, 'wrap' takes indices modulo the axis size.
    Negative indices wrap once, as in NumPy. `unique_indices` / `indices_are_sorted`
    are promises that do not change the result."""
    if out is not None:
        raise NotImplementedInAstjaxError("The 'out' argument to jnp.take is not supported.",
                                          hint="use the returned array")
    a, indices = asarray(a), asarray(indices)
    if axis is None:
        a, axis = _ravel(a), 0
    aa, ia = core.get_aval(a), core.get_aval(indices)
    axis = canonicalize_axis(axis, aa.ndim, "take")
    # the mode is checked before the axis is looked at, as JAX's: only these strings
    # (a GatherScatterMode is JAX's ValueError too)
    if mode == "raise":
        raise NotImplementedInAstjaxError("The 'raise' mode to jnp.take is not supported.",
                                          hint="use mode='fill' or 'clip'")
    if not (mode is None or isinstance(mode, str) and mode in ("fill", "clip", "wrap")):
        raise ArgumentValueError(f"Invalid mode '{mode}' for np.take",
                                 hint="use 'fill' (the default), 'clip' or 'wrap'")
    n = aa.shape[axis]
    if n == 0:   # as JAX (before any mode applies): an error, or `a` itself
        if ia.size != 0:
            raise ArgumentIndexError("Cannot do a non-empty jnp.take() from an empty axis.",
                                     hint="take from a non-empty axis, or with empty indices")
        return a
    idx_dtype = dtypes.int64 if ia.dtype == dtypes.int64 else dtypes.int32
    if mode == "wrap":
        indices = lax.convert_element_type(indices, idx_dtype)
        m = lax.full_like(indices, np.asarray(max(n, 1), idx_dtype)[()])
        r = lax.rem(indices, m)
        indices = lax.select(lax.lt(r, lax.full_like(r, np.asarray(0, idx_dtype)[()])),
                             lax.add(r, m), r)
        mode = "clip"
    elif mode == "clip":   # clamped as given: -1 reads the first element (JAX's rule)
        indices = lax.convert_element_type(indices, idx_dtype)
    else:
        indices = _normalize(indices, n, idx_dtype)
    mode = GatherScatterMode.FILL_OR_DROP if mode is None else mode
    out_ndim = aa.ndim - 1 + ia.ndim
    dn = GatherDimensionNumbers(
        offset_dims=tuple(range(axis)) + tuple(range(axis + ia.ndim, out_ndim)),
        collapsed_slice_dims=(axis,), start_index_map=(axis,))
    sizes = [1 if d == axis else s for d, s in enumerate(aa.shape)]
    return lax.gather(a, lax.reshape(indices, ia.shape + (1,)), dn, sizes, mode=mode,
                      fill_value=fill_value)
