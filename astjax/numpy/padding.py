"""`jnp.pad`: every NumPy padding mode (constant, edge, wrap, reflect and symmetric with
`reflect_type`, linear_ramp with `end_values`, maximum/minimum/mean/median with
`stat_length`, empty) and a callable mode, as `jax.numpy.pad` computes them.

Widths, `stat_length` and `end_values` are static; the array and `constant_values`
may be staged. Each axis is padded in turn, by concatenating slices of the array, so
every mode is differentiable wherever its values are."""
from __future__ import annotations

import numpy as np

from .. import core, dtypes, lax
from ..errors import ArgumentTypeError, ArgumentValueError, NotImplementedInAstjaxError
from . import ufuncs as uf
from .arrayops import apply_along_axis
from .creation import linspace
from .operands import asarray, broadcast_to_shape, _pad_value
from .reductions import max as _max, mean as _mean, min as _min
from .repeats import repeat
from .shapes import flip
from .quantiles import median
from .util import library_jit

__all__ = ["pad"]

# Which keyword arguments each named mode takes (JAX's and NumPy's table).
_MODE_KWARGS = {
    "constant": ("constant_values",), "edge": (), "wrap": (), "empty": (),
    "linear_ramp": ("end_values",), "reflect": ("reflect_type",),
    "symmetric": ("reflect_type",), "maximum": ("stat_length",),
    "minimum": ("stat_length",), "mean": ("stat_length",), "median": ("stat_length",),
}
def _shape(a):
    return core.get_aval(a).shape


_STATS = {"maximum": _max, "minimum": _min, "mean": _mean, "median": median}


def _pairs(values, nd, name, dtype=np.int64):
    """`values` (a pad_width, stat_length or end_values argument) as nd (before, after)
    pairs. The accepted shapes are (nd, 2), (1, 2), (2,), (1,) and ()."""
    try:
        v = np.asarray(values, dtype=dtype)
    except ValueError:
        raise ArgumentTypeError(f"`{name}` entries must be the same shape: {values!r:.60}",
                                hint="pass one value, a (before, after) pair, or one pair "
                                     "per axis") from None
    if v.shape not in ((nd, 2), (1, 2), (2,), (1,), ()):
        raise ArgumentValueError(
            f"jnp.pad: {name} with nd={nd} has unsupported shape {v.shape}. Valid shapes "
            f"are ({nd}, 2), (1, 2), (2,), (1,), or ().",
            hint="pass one value, a (before, after) pair, or one pair per axis")
    v = v.reshape(-1, 2) if v.ndim == 2 or v.shape == (2,) else np.full((1, 2), v.reshape(()))
    return [tuple(p) for p in np.broadcast_to(v, (nd, 2)).tolist()]


def _no_padding_of_empty(n, lo, hi, mode):
    if n == 0 and (lo or hi):
        raise ArgumentValueError(f"Cannot apply '{mode}' padding to empty axis",
                                 hint="an empty axis has no values to pad from")


def _concat(before, array, after, ax):
    parts = [p for p in (before, array, after) if p is not None]
    return lax.concatenate(parts, ax) if len(parts) > 1 else array


def _pad_constant(array, pw, constant_values):
    dt = core.get_aval(array).dtype
    if dtypes.is_weak_scalar(constant_values):
        cv = _pad_value(array, constant_values)
    else:   # (JAX: converted with the array's weak type)
        cv = lax.convert_element_type(asarray(constant_values), dt,
                                      weak_type=core.get_aval(array).weak_type)
    shape = np.shape(cv)
    if len(shape) == 1 and shape[0] == 1:
        cv = lax.reshape(cv, ())
    elif len(shape) == 1 and shape[0] != 2:
        raise ArgumentValueError(
            f"jnp.pad: constant_values has unsupported shape {shape}. If the shape is 1D or "
            f"2D, the last dimension must be of size 1 or 2.")
    if not np.shape(cv):
        return lax.pad(array, cv, [(lo, hi, 0) for lo, hi in pw])
    nd = len(pw)
    cv = broadcast_to_shape(cv, (nd, 2))
    for ax, (lo, hi) in enumerate(pw):
        for side, width in ((0, lo), (1, hi)):
            if width:
                widths = [(0, 0, 0)] * nd
                widths[ax] = (width, 0, 0) if side == 0 else (0, width, 0)
                array = lax.pad(array, lax.reshape(lax.slice(cv, (ax, side), (ax + 1, side + 1)),
                                                   ()), widths)
    return array


def _pad_wrap(array, pw):
    for ax, (lo, hi) in enumerate(pw):
        n = _shape(array)[ax]
        _no_padding_of_empty(n, lo, hi, "wrap")
        if n == 0 or not (lo or hi):
            continue
        idx = np.arange(-lo, n + hi) % n
        # whole periods are the array itself; only the partial ends are slices
        parts = [lax.slice_in_dim(array, int(idx[0]), n, axis=ax)] if lo % n else []
        parts += [array] * ((lo // n) + (hi // n) + 1)
        if hi % n:
            parts.append(lax.slice_in_dim(array, 0, hi % n, axis=ax))
        array = lax.concatenate(parts, ax)
    return array


def _pad_mirror(array, pw, mode, odd):
    """reflect / symmetric: mirror images of the array, one period at a time; with
    `odd`, each image is reflected about the value at its edge (2 * edge - x)."""
    for ax, (lo, hi) in enumerate(pw):
        n = _shape(array)[ax]
        _no_padding_of_empty(n, lo, hi, mode)
        if n == 0:
            continue
        # reflect skips the edge value itself unless the axis has just one
        skip = 1 if (mode == "reflect" and n > 1) else 0
        for before, width in ((True, lo), (False, hi)):
            while width > 0:
                take_n = min(width, n - skip)
                width -= take_n
                m = _shape(array)[ax]
                if before:
                    chunk = lax.slice_in_dim(array, skip, skip + take_n, axis=ax)
                    edge = lax.slice_in_dim(array, 0, 1, axis=ax)
                else:
                    stop = m - skip
                    chunk = lax.slice_in_dim(array, stop - take_n, stop, axis=ax)
                    edge = lax.slice_in_dim(array, m - 1, m, axis=ax)
                chunk = flip(chunk, ax)
                if odd:
                    chunk = uf.subtract(uf.multiply(2, edge), chunk)
                array = lax.concatenate([chunk, array] if before else [array, chunk], ax)
    return array


def _pad_edge(array, pw):
    for ax, (lo, hi) in enumerate(pw):
        n = _shape(array)[ax]
        _no_padding_of_empty(n, lo, hi, "edge")
        if n == 0:
            continue
        before = repeat(lax.slice_in_dim(array, 0, 1, axis=ax), lo, ax) if lo else None
        after = repeat(lax.slice_in_dim(array, n - 1, n, axis=ax), hi, ax) if hi else None
        array = _concat(before, array, after, ax)
    return array


def _pad_linear_ramp(array, pw, end_values):
    dt = core.get_aval(array).dtype
    for ax, (lo, hi) in enumerate(pw):
        n = _shape(array)[ax]
        ramps = []
        for width, end, at in ((lo, end_values[ax][0], 0), (hi, end_values[ax][1], n - 1)):
            edge = lax.reshape(lax.slice_in_dim(array, at, at + 1, axis=ax),
                               _shape(array)[:ax] + _shape(array)[ax + 1:])
            ramps.append(linspace(end, edge, width, endpoint=False, dtype=dt, axis=ax)
                         if width else None)
        after = flip(ramps[1], ax) if ramps[1] is not None else None
        array = _concat(ramps[0], array, after, ax)
    return array


def _pad_stats(array, pw, stat_length, stat):
    dt = core.get_aval(array).dtype
    for ax, (lo, hi) in enumerate(pw):
        n = _shape(array)[ax]
        if stat_length is None:
            s_lo = s_hi = stat(array, axis=ax, keepdims=True)
        else:
            len_lo, len_hi = (min(k, n) for k in stat_length[ax])
            s_lo = stat(lax.slice_in_dim(array, 0, len_lo, axis=ax), axis=ax, keepdims=True)
            s_hi = stat(lax.slice_in_dim(array, n - len_hi, n, axis=ax), axis=ax,
                        keepdims=True)
        if dtypes.issubdtype(dt, np.integer):   # mean/median of integers: rounded
            s_lo, s_hi = uf.round(s_lo), uf.round(s_hi)
        s_lo, s_hi = (lax.convert_element_type(s, dt) for s in (s_lo, s_hi))
        array = _concat(repeat(s_lo, lo, ax) if lo else None, array,
                        repeat(s_hi, hi, ax) if hi else None, ax)
    return array


def _pad_callable(array, pw, func, kwargs):
    """NumPy's callable mode: zero-pad, then let `func(row, (before, after), axis,
    kwargs)` rewrite every 1-D slice, axis by axis."""
    padded = lax.pad(array, np.zeros((), core.get_aval(array).dtype)[()],
                     [(lo, hi, 0) for lo, hi in pw])
    for ax in range(len(pw)):
        padded = apply_along_axis(func, ax, padded, pw[ax], ax, kwargs)
    return padded


def pad(array, pad_width, mode="constant", **kwargs):
    """Pad `array` on every axis with values chosen by `mode`.
    Args: array: array; pad_width: (before, after) widths per axis (or one pair, or
        one width); mode: 'constant', 'edge', 'wrap', 'reflect', 'symmetric',
        'linear_ramp', 'maximum', 'minimum', 'mean', 'median', 'empty', or a callable
        `f(row, (before, after), axis, kwargs)` returning the padded row;
        **kwargs: the mode's options -- `constant_values` (constant; a scalar, a pair,
        or one pair per axis), `reflect_type` ('even' or 'odd'; reflect and symmetric),
        `end_values` (linear_ramp), `stat_length` (the statistics modes), or anything
        for a callable mode.
    Returns: Array enlarged by the padding, of `array`'s dtype.
    Vs NumPy: `pad_width`, `stat_length` and `end_values` must be static; 'empty' pads
        with zeros.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.pad(jnp.arange(3), 1)
    Array([0, 0, 1, 2, 0], dtype=int32)
    >>> jnp.pad(jnp.arange(3), 2, mode="reflect", reflect_type="odd")
    Array([-2, -1,  0,  1,  2,  3,  4], dtype=int32)
    """
    array = asarray(array)
    nd = core.get_aval(array).ndim
    if nd and not np.issubdtype(np.asarray(pad_width).dtype, np.integer):  # JAX: TypeError
        raise ArgumentTypeError("`pad_width` must be of integral type.",
                                hint="pass ints: a width, a (before, after) pair, or one per axis")
    pw = _pairs(pad_width, nd, "pad_width")
    if any(w < 0 for p in pw for w in p):
        raise ArgumentValueError(f"jnp.pad: pad_width must be nonnegative, got "
                                 f"{pad_width!r:.60}",
                                 hint="to remove elements, slice the array instead")
    if callable(mode):
        return _pad_callable(array, pw, mode, kwargs)
    if mode not in _MODE_KWARGS:
        raise NotImplementedInAstjaxError(f"Unimplemented padding mode '{mode}' for np.pad.",
                                          hint="modes: " + ", ".join(_MODE_KWARGS))
    extra = set(kwargs) - set(_MODE_KWARGS[mode])
    if extra:
        raise ArgumentValueError(f"unsupported keyword arguments for mode '{mode}': {extra}",
                                 hint=f"mode {mode!r} takes {_MODE_KWARGS[mode] or 'none'}")
    if nd == 0:
        return array
    end_values = _pairs(kwargs.get("end_values", 0), nd, "end_values", dtype=None) \
        if mode == "linear_ramp" else None
    sl = kwargs.get("stat_length")
    sl = None if sl is None else _pairs(sl, nd, "stat_length")
    rt = kwargs.get("reflect_type", "even")
    if rt not in ("even", "odd"):
        raise ArgumentValueError(f"jnp.pad: reflect_type must be 'even' or 'odd', got {rt!r}")
    if sl is not None and any(0 in p for p in sl):
        raise ArgumentValueError("stat_length of 0 yields no value for padding",
                                 hint="give every stat_length entry at least 1")
    return _pad(array, tuple(pw), mode, kwargs.get("constant_values", 0),
                None if sl is None else tuple(sl),
                None if end_values is None else tuple(end_values), rt)


@library_jit(static_argnums=(1, 2, 4, 5, 6), keep_call=True)
def _pad(array, pw, mode, constant_values, stat_length, end_values, reflect_type):
    """A named mode, compiled once per array type, widths and options (as JAX's `_pad`;
    staged, an inner `jit` equation)."""
    if mode == "constant":
        return _pad_constant(array, pw, constant_values)
    if mode == "wrap":
        return _pad_wrap(array, pw)
    if mode in ("reflect", "symmetric"):
        return _pad_mirror(array, pw, mode, reflect_type == "odd")
    if mode == "edge":
        return _pad_edge(array, pw)
    if mode == "linear_ramp":
        return _pad_linear_ramp(array, pw, end_values)
    if mode in _STATS:
        return _pad_stats(array, pw, stat_length, _STATS[mode])
    return lax.pad(array, np.zeros((), core.get_aval(array).dtype)[()],   # empty
                   [(lo, hi, 0) for lo, hi in pw])
