"""Splitting an array into parts along an axis: `split`, `array_split`, `hsplit`,
`vsplit`, `dsplit` -- each one `lax.split` of the sizes the counts or split points
give, as JAX builds them (so reverse mode joins the parts' cotangents into one
`concatenate`, the transpose of `split`)."""
from __future__ import annotations

import numpy as np

from .. import core, lax
from ..errors import ArgumentZeroDivisionError, ShapeValueError
from .operands import asarray
from .shapes import ndim, shape
from .util import canonicalize_axis, static_int

__all__ = ["split", "array_split", "hsplit", "vsplit", "dsplit"]


def _split(op, ary, indices_or_sections, axis):
    """The parts of `ary` along `axis` for jnp.`op` (JAX's one rule for the five
    functions): a list, tuple or array of rank > 0 gives split points, used as given
    (their differences are the sizes, which `lax.split` checks); anything else is a
    section count, whose uneven division only `array_split` accepts."""
    ary = asarray(ary)
    axis = canonicalize_axis(axis, ndim(ary), f"jnp.{op}")
    size = shape(ary)[axis]
    what = f"jnp.{op}: indices_or_sections"
    if isinstance(indices_or_sections, (tuple, list)) or (
            hasattr(indices_or_sections, "shape") and np.ndim(indices_or_sections) > 0):
        points = [static_int(i, what) for i in indices_or_sections]
        sizes = list(np.diff([0, *points, size]))
    else:
        count = indices_or_sections
        if isinstance(count, core.Tracer):
            count = static_int(count, what)
        count = int(count)   # (as JAX: any value `int` accepts, 2.0 too)
        if count == 0:   # (JAX's ZeroDivisionError, from the division below)
            raise ArgumentZeroDivisionError(f"jnp.{op} into 0 sections: integer division "
                                            "or modulo by zero",
                                            hint="ask for at least one section")
        part, rest = divmod(size, count)
        if rest == 0:
            sizes = [part] * count
        elif op == "array_split":
            sizes = [part + 1] * rest + [part] * (count - rest)
        else:
            raise ShapeValueError(f"array split does not result in an equal division: "
                                  f"rest is {rest}", hint="use jnp.array_split for unequal parts")
    return list(lax.split(ary, [np.int64(s) for s in sizes], axis=axis))


def split(ary, indices_or_sections, axis=0):
    """Divide `ary` into sub-arrays along `axis`.
    Args: ary: array; indices_or_sections: section count or sorted split points; axis: int.
    Returns: list of Arrays (one `lax.split`).
    Vs NumPy: counts and split points must be static; an uneven count raises; split
    points are used as given (JAX's rule): out-of-range or decreasing ones raise ValueError.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.split(jnp.arange(6), 3)
    [Array([0, 1], dtype=int32), Array([2, 3], dtype=int32), Array([4, 5], dtype=int32)]
    """
    return _split("split", ary, indices_or_sections, axis)


def array_split(ary, indices_or_sections, axis=0):
    """Like `split`, but allows sections of unequal length.
    Args: ary: array; indices_or_sections: int count or split points; axis: int.
    Returns: list of Arrays; the first ones get the extra elements.
    Vs NumPy: split points must be static (concrete) values, used as given (JAX's
    rule: out-of-range or decreasing ones raise ValueError).
    Example:
    >>> import astjax.numpy as jnp
    >>> [a.shape for a in jnp.array_split(jnp.arange(5), 2)]
    [(3,), (2,)]
    """
    return _split("array_split", ary, indices_or_sections, axis)


def hsplit(ary, indices_or_sections):
    """Split along the second axis (the first for 1-D input).
    Args: ary: array; indices_or_sections: section count or split points.
    Returns: list of Arrays.
    Vs NumPy: split points must be static."""
    ary = asarray(ary)
    return _split("hsplit", ary, indices_or_sections, 1 if ndim(ary) != 1 else 0)


def vsplit(ary, indices_or_sections):
    """Split along the first axis.
    Args: ary: array; indices_or_sections: section count or split points.
    Returns: list of Arrays.
    Vs NumPy: split points must be static; a 1-D array is split too (as JAX)."""
    return _split("vsplit", ary, indices_or_sections, 0)


def dsplit(ary, indices_or_sections):
    """Split along the third axis.
    Args: ary: array of ndim >= 3; indices_or_sections: section count or split points.
    Returns: list of Arrays.
    Vs NumPy: split points must be static."""
    return _split("dsplit", ary, indices_or_sections, 2)
