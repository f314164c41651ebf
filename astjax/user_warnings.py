"""Warnings attributed to the user's line.

A warning astjax emits names the file and line where the user's code called into
astjax, never a line of astjax itself: `warn` walks out of astjax's own frames (the
ones a filtered traceback hides, `traceback_util.include_frame`) and hands
`warnings.warn` the stack level of the first frame that is not astjax's. Converted
user code is compiled under the user's file name and line numbers, so inside a
converted function (under `jit`, `grad`, `vmap`, or a helper it calls) the warning
names the user's statement; called eagerly, the line of the call. Frames of a library
registered with `traceback_util.register_exclusion` are skipped as well.

Warning filters, `warnings.catch_warnings(record=True)` and the "once per location"
registry then work on the user's location, as they do for JAX's warnings.
"""
from __future__ import annotations

import sys
import warnings

import numpy as np

from .traceback_util import include_frame

__all__ = ["user_stacklevel", "warn", "warn_complex_to_real"]


def user_stacklevel(depth: int = 1) -> int:
    """The `stacklevel` that makes `warnings.warn`, called from the frame `depth`
    levels above this function's caller, name the innermost frame outside astjax.

    Args:
        depth: 1 when the caller of `user_stacklevel` calls `warnings.warn` itself.

    Returns:
        An int for `warnings.warn(..., stacklevel=)`: 1 names the frame that calls
        `warnings.warn`; with no frame outside astjax on the stack, that of the
        caller of the function that warns (Python's default for library warnings).
    """
    f = sys._getframe(depth)   # the frame that calls warnings.warn: stacklevel 1
    level = 1
    while f is not None and not include_frame(f):
        f, level = f.f_back, level + 1
    return level if f is not None else 2


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """`warnings.warn(message, category)` located at the user's line.

    Args:
        message: the warning's text.
        category: a Warning subclass (default UserWarning).

    Returns:
        None.
    """
    warnings.warn(message, category, stacklevel=user_stacklevel())


def warn_complex_to_real(host=None):
    """NumPy's (and JAX's) ComplexWarning for a cast of complex values to a real dtype,
    at the user's line: `lax.convert_element_type`, `jnp.asarray(..., dtype=)` of host
    data, and `np.asarray` of an astjax array all give it.

    Args:
        host: complex host data being cast (a NumPy array), or None.

    Returns:
        `host.real` (None without host data).
    """
    warnings.warn("Casting complex values to real discards the imaginary part",
                  np.exceptions.ComplexWarning, stacklevel=user_stacklevel())
    return None if host is None else host.real
