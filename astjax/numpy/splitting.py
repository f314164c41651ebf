"""Splitting an array into parts along an axis: `split`, `array_split`, `hsplit`,
`vsplit`, `dsplit` (static counts or split points; every part cut by one executable on
an eager call)."""
from __future__ import annotations

import numpy as np

from .. import lax
from ..errors import ArgumentValueError, ArgumentZeroDivisionError, ShapeValueError
from .operands import asarray
from .shapes import _count, ndim, shape
from .util import canonicalize_axis, library_jit as _library_jit

__all__ = ["split", "array_split", "hsplit", "vsplit", "dsplit"]


def split(ary, indices_or_sections, axis=0):
    """Divide `ary` into sub-arrays along `axis`.
    Args: ary: array; indices_or_sections: section count or sorted split points; axis: int.
    Returns: list of Arrays.
    Vs NumPy: counts and split points must be static; an uneven count raises; split
    points are used as given (JAX's rule): out-of-range or decreasing ones raise ValueError.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.split(jnp.arange(6), 3)
    [Array([0, 1], dtype=int32), Array([2, 3], dtype=int32), Array([4, 5], dtype=int32)]
    """
    ary = asarray(ary)
    axis = canonicalize_axis(axis, ndim(ary), "split")
    n = shape(ary)[axis]
    indices_or_sections = _count(indices_or_sections, "jnp.split: indices_or_sections")
    if isinstance(indices_or_sections, (int, np.integer)):
        k = int(indices_or_sections)
        if k == 0:  # JAX's ZeroDivisionError
            raise ArgumentZeroDivisionError("jnp.split into 0 sections (division by zero)")
        if k < 0:
            raise ArgumentValueError(f"jnp.split: the number of sections must be positive, "
                                     f"got {k}")
        if n % k:
            raise ShapeValueError(f"array split does not result in an equal division: "
                                  f"{n} into {k} sections",
                                  hint="use jnp.array_split for unequal parts")
        bounds = [i * (n // k) for i in range(k + 1)]
    else:
        bounds = [0] + [int(i) for i in indices_or_sections] + [n]
        sizes = [b - a for a, b in zip(bounds[:-1], bounds[1:])]
        if any(d < 0 for d in sizes):   # as JAX: split points taken as given, not clamped
            raise ArgumentValueError(f"Sizes passed to split must be nonnegative, got {sizes}",
                                     hint="give increasing split points within the axis "
                                          "length (negative ones are not counted from the end)")
    return _split_at(ary, tuple(bounds), axis)


@_library_jit(static_argnums=(1, 2))
def _split_at(ary, bounds, axis):
    """The parts of `ary` between consecutive `bounds` along `axis` (one executable
    for all of them on an eager call, as JAX's one `lax.split`)."""
    return [lax.slice_in_dim(ary, a, b, axis=axis) for a, b in zip(bounds[:-1], bounds[1:])]


def array_split(ary, indices_or_sections, axis=0):
    """Like `split`, but allows sections of unequal length.
    Args: ary: array; indices_or_sections: int count or split points; axis: int.
    Returns: list of Arrays; the first ones get the extra elements.
    Vs NumPy: split points must be static (concrete) values.
    Example:
    >>> import astjax.numpy as jnp
    >>> [a.shape for a in jnp.array_split(jnp.arange(5), 2)]
    [(3,), (2,)]
    """
    n = shape(ary)[canonicalize_axis(axis, ndim(ary), "array_split")]
    if isinstance(indices_or_sections, (int, np.integer)):
        k = int(indices_or_sections)
        if k == 0:   # (JAX's ZeroDivisionError, from the same division)
            raise ArgumentZeroDivisionError("array_split: integer division or modulo by zero "
                                            "(0 sections)", hint="ask for at least one section")
        q, r = divmod(n, k)
        sizes = [q + 1] * r + [q] * (k - r)
        idx = list(np.cumsum(sizes)[:-1])
        return split(ary, idx, axis)
    return split(ary, indices_or_sections, axis)


def hsplit(ary, indices_or_sections):
    """Split along the second axis (the first for 1-D input).
    Args: ary: array; indices_or_sections: section count or split points.
    Returns: list of Arrays.
    Vs NumPy: split points must be static."""
    return split(ary, indices_or_sections, 1 if ndim(ary) > 1 else 0)


def vsplit(ary, indices_or_sections):
    """Split along the first axis.
    Args: ary: array of ndim >= 2; indices_or_sections: section count or split points.
    Returns: list of Arrays.
    Vs NumPy: split points must be static."""
    return split(ary, indices_or_sections, 0)


def dsplit(ary, indices_or_sections):
    """Split along the third axis.
    Args: ary: array of ndim >= 3; indices_or_sections: section count or split points.
    Returns: list of Arrays.
    Vs NumPy: split points must be static."""
    return split(ary, indices_or_sections, 2)
