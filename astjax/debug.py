"""`astjax.debug` (JAX's `jax.debug`): look at values while a staged program runs —
`print` and `callback`, called with the run-time values (also under `vmap`, once per
example, and under `grad`, with the primal values)."""
from __future__ import annotations

import numpy as np

from . import core
from .callbacks_api import flat_host_call
from .errors import ArgumentTypeError
from .primitives.callbacks import debug_callback_p

__all__ = ["print", "callback"]

_print = print


def callback(callback, *args, ordered=False, partitioned=False, **kwargs):
    """Call `callback(*args, **kwargs)` on the NumPy values of its array arguments
    when the program runs; it returns nothing."""
    if not callable(callback):
        raise ArgumentTypeError(f"jax.debug.callback needs a callable, got {callback!r}")
    leaves, host = flat_host_call(callback, args, kwargs, [], None)
    if core.current_builder() is None:
        host(*[np.asarray(x) for x in leaves])
        return None
    debug_callback_p.bind(*leaves, callback=host, ordered=bool(ordered))
    return None


class _Anything:
    """Formats as anything and indexes to itself: checks a format's fields only."""

    def __format__(self, spec):
        return ""

    def __getitem__(self, key):
        return self

    def __getattr__(self, name):
        return self


def _check_format(fmt, args, kwargs):
    """Raise now (IndexError / KeyError, as `str.format` would at run time) when `fmt`
    refers to arguments that were not given."""
    fmt.format(*[_Anything()] * len(args), **{k: _Anything() for k in kwargs})


def print(fmt: str, *args, ordered=False, **kwargs):  # noqa: A001
    """`print(fmt.format(*args, **kwargs))` with the values the program computes."""
    if not isinstance(fmt, str):
        raise ArgumentTypeError(f"jax.debug.print needs a format string, got {fmt!r}")
    _check_format(fmt, args, kwargs)
    callback(lambda *a, **k: _print(fmt.format(*a, **k)), *args, ordered=ordered, **kwargs)
