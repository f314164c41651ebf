"""Repetition along axes: `tile`, `repeat` (per-element counts, static or -- with JAX's
`total_repeat_length` -- staged) and `roll` (static shifts broadcast against the axes,
or a staged shift: JAX's dynamic roll)."""
from __future__ import annotations

import operator

import numpy as np

from .. import core, lax
from ..errors import ConcretizationError, ShapeError, ShapeValueError
from .indexing import _IndexUpdateRef, take
from .operands import asarray, asarray_operand, broadcast_shapes, broadcast_to_shape
from .shapes import _count, ndim, ravel, _reshape as reshape, shape
from .sorting import cumsum as _cumsum
from .ufuncs import remainder as _remainder
from .util import canonicalize_axis, library_jit as _library_jit, static_int, with_out_sharding

__all__ = ["tile", "repeat", "roll"]


def tile(A, reps):
    """Build an array by repeating `A` `reps` times per axis.
    Args: A: array; reps: int or tuple of ints.
    Returns: Array whose extent on each axis is multiplied.
    Vs NumPy: `reps` must be static.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.tile(jnp.arange(2), 3)
    Array([0, 1, 0, 1, 0, 1], dtype=int32)
    """
    A = asarray(A)
    reps = _count(reps, "jnp.tile: reps")
    # (a scalar of another type -- `2.5` -- is static_int's TypeError, as JAX's)
    reps = tuple(static_int(r, "jnp.tile: reps") for r in (
        reps if isinstance(reps, (tuple, list)) or np.ndim(reps) else (reps,)))
    nd = max(len(reps), ndim(A))
    A = reshape(A, (1,) * (nd - ndim(A)) + shape(A))
    reps = (1,) * (nd - len(reps)) + reps
    s = shape(A)
    # broadcast each axis to (rep, dim) then merge
    inter = []
    dims = []
    for i, (r, d) in enumerate(zip(reps, s)):
        inter += [r, d]
        dims.append(2 * i + 1)
    b = lax.broadcast_in_dim(A, tuple(inter), tuple(dims))
    return lax.reshape(b, tuple(r * d for r, d in zip(reps, s)))


@with_out_sharding("repeat", device=False, auto=True)
def repeat(a, repeats, axis=None, *, total_repeat_length=None):
    """Repeat each element of `a` along `axis`.
    Args: a: array; repeats: int or per-element array; axis: int or None (flatten);
        total_repeat_length: (keyword) the result's length along `axis` (JAX's: the
        repeated elements cut there, or extended by the last one; `repeats` may then be
        staged);
        out_sharding: (keyword) the result's layout on an Explicit mesh (computed over
        Auto axes, as JAX's).
    Returns: Array with elements repeated.
    Vs NumPy: `repeats` must be static (concrete) unless `total_repeat_length` is given,
        so that the output shape is known.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.repeat(jnp.arange(3), 2)
    Array([0, 0, 1, 1, 2, 2], dtype=int32)
    """
    a = asarray(a)
    if axis is None:
        a = ravel(a)
        axis = 0
    if ndim(a) == 0:    # (JAX: any axis of a 0-d `a` is read as a 1-element one)
        return _repeat_scalar(a, repeats, total_repeat_length)
    axis = canonicalize_axis(axis, ndim(a), "repeat")
    s = shape(a)
    if total_repeat_length is not None:
        return _repeat_to_length(a, repeats, axis, static_int(
            total_repeat_length, "jnp.repeat: total_repeat_length"))
    repeats = _count(repeats, "jnp.repeat: repeats (give total_repeat_length to stage it)")
    if isinstance(repeats, (int, np.integer)):
        r = int(repeats)
        b = lax.broadcast_in_dim(a, s[:axis + 1] + (r,) + s[axis + 1:],
                                 tuple(range(axis + 1)) + tuple(range(axis + 2, ndim(a) + 1)))
        return lax.reshape(b, s[:axis] + (s[axis] * r,) + s[axis + 1:])
    if isinstance(repeats, core.Tracer) or (isinstance(repeats, (list, tuple)) and any(
            isinstance(r, core.Tracer) for r in repeats)):
        raise ConcretizationError("jnp.repeat: staged per-element repeats give a shape only "
                                  "known when the function runs",
                                  hint="pass repeats as a static array or list")
    reps = np.asarray(repeats)
    if reps.ndim == 0:
        return repeat(a, int(reps), axis)
    reps = reps.ravel()     # (JAX flattens an array of counts of any shape)
    if reps.shape[0] not in (1, s[axis]):
        raise ShapeValueError(f"jnp.repeat: repeats of shape {reps.shape} do not match axis "
                              f"{axis} of length {s[axis]}",
                              hint="give one repeat count per element along the axis, or one "
                                   "for all")
    idx = _repeat_indices(reps, s[axis])
    return take(a, asarray(idx.astype(np.int32)), axis=axis)


def _repeat_scalar(a, repeats, total):
    """`repeat` of a 0-d `a` along a given axis: one count (its value, or
    `total_repeat_length`) makes a 1-D array."""
    if np.size(repeats) != 1:
        raise ShapeValueError("jnp.repeat of a 0-d array takes one count, got repeats of "
                              f"shape {np.shape(repeats)}", hint="pass one count")
    if total is None:
        total = _count(ravel(asarray_operand(repeats))[0] if np.ndim(repeats) else repeats,
                       "jnp.repeat: repeats (give total_repeat_length to stage it)")
    n = static_int(total, "jnp.repeat: total_repeat_length")
    return lax.broadcast_in_dim(a, (n,), ())


def _repeat_to_length(a, repeats, axis, total):
    """`repeat` with JAX's `total_repeat_length`: the repeated elements cut or extended
    (by the last one) to `total`, with the counts staged or known: JAX's gather indices
    (block starts scattered as marks, dropped past the end, then a running sum)."""
    n = shape(a)[axis]
    reps = broadcast_to_shape(ravel(asarray_operand(repeats)), (n,))
    if total == 0 or n == 0:
        return lax.slice_in_dim(a, 0, 0, axis=axis) if total == 0 else a
    starts = _cumsum(lax.pad(reps, np.zeros((), core.get_aval(reps).dtype)[()], [(1, -1, 0)]))
    marks = _IndexUpdateRef(lax.full((total,), 0, np.int32), starts).add(1)
    return take(a, lax.sub(_cumsum(marks), np.int32(1)), axis=axis)


def _repeat_indices(reps, n):
    """The gather indices of `repeat` with per-element counts, computed as JAX does
    (marks scattered at each block's start, then a running sum), so that negative
    counts give JAX's answer too; a negative total is the TypeError JAX raises."""
    reps = np.broadcast_to(reps.astype(np.int64), (n,))
    total = int(reps.sum())
    if total < 0:
        raise ShapeError(f"jnp.repeat: the repeats sum to {total}, a negative length")
    starts = np.cumsum(np.concatenate([[0], reps[:-1]]))
    starts = np.where(starts < 0, starts + total, starts)  # negative indices wrap, as .at[]
    marks = np.zeros(total, np.int64)
    np.add.at(marks, starts[(starts >= 0) & (starts < total)], 1)
    return np.cumsum(marks) - 1


@_library_jit(static_argnames=("shift", "axis"))   # (an Array shift: op by op)
def roll(a, shift, axis=None):
    """Cyclically shift elements of `a` by `shift` along `axis`.
    Args: a: array; shift: int, tuple or (staged) array; axis: optional int or tuple
        (None: flatten); shifts and axes broadcast against each other, as NumPy's.
    Returns: Array with rolled elements.
    Vs NumPy: a new array is returned; a staged `shift` is taken (as JAX's: a dynamic
        slice of the array joined to itself), truncated to int32.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.roll(jnp.arange(4), 1)
    Array([3, 0, 1, 2], dtype=int32)
    """
    a = asarray(a)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), shape(a))
    axes = tuple(canonicalize_axis(ax, ndim(a), "roll") for ax in _index_tuple(axis))
    try:
        shifts = _index_tuple(shift)
    except TypeError:       # (a staged or non-integer shift: JAX's dynamic roll)
        return _roll_dynamic(a, asarray_operand(shift), axes)
    try:
        pairs = np.broadcast_arrays(np.asarray(axes, int), np.asarray(shifts, int))
    except ValueError:
        raise ShapeValueError(f"jnp.roll: {len(shifts)} shifts do not broadcast against "
                              f"{len(axes)} axes", hint="give one shift, or one per axis")
    for ax, sh in zip(*(p.tolist() for p in pairs)):
        n = shape(a)[ax]
        sh = sh % n if n else 0
        if sh:
            a = lax.concatenate([lax.slice_in_dim(a, n - sh, n, axis=ax),
                                 lax.slice_in_dim(a, 0, n - sh, axis=ax)], ax)
    return a


def _index_tuple(v):
    """`v` as a tuple of Python ints (one int, or a sequence of them); a TypeError when
    it is not (a float, a staged value)."""
    try:
        return (operator.index(v),)
    except TypeError:
        return tuple(operator.index(x) for x in v)


def _roll_dynamic(a, shift, axes):
    """`roll` by a staged `shift` (0-d, or one per axis): each axis a window of the array
    joined to itself, starting at `n - shift mod n`."""
    b = broadcast_shapes(shape(shift), (len(axes),))
    if len(b) != 1:
        raise ShapeValueError("jnp.roll: shift and axis must be scalars or 1-D arrays")
    shift = broadcast_to_shape(shift, b)
    for k, ax in enumerate(np.broadcast_to(np.asarray(axes, int), b).tolist()):
        n = np.int32(shape(a)[ax])
        sh = lax.convert_element_type(lax.index_in_dim(shift, k, 0, False), np.int32)
        sh = lax.sub(n, _remainder(sh, np.int32(max(n, 1))))
        a = lax.dynamic_slice_in_dim(lax.concatenate([a, a], ax), sh, int(n), axis=ax)
    return a
