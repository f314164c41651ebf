"""Names for parts of a program: `named_scope` (a context manager or decorator) and
`named_call`. The names form a per-thread stack (`current_name_stack`); they label
code for people and tools and never change what a program computes."""
from __future__ import annotations

import contextlib
import functools
import threading

__all__ = ["named_scope", "named_call", "current_name_stack"]

_local = threading.local()


def current_name_stack() -> tuple[str, ...]:
    """The names of the scopes entered in this thread, outermost first."""
    return tuple(getattr(_local, "stack", ()))


class named_scope(contextlib.ContextDecorator):
    """`with named_scope("layer1"): ...` or `@named_scope("layer1")`: push `name` onto
    the name stack for the code inside."""

    def __init__(self, name: str):
        if not isinstance(name, str):
            raise TypeError("named_scope name argument must be a string.")
        self.name = name

    def __enter__(self):
        _local.stack = current_name_stack() + (self.name,)
        return self

    def __exit__(self, *exc):
        _local.stack = current_name_stack()[:-1]
        return False


def named_call(fun, *, name: str | None = None):
    """`fun`, run inside `named_scope(name)` (default: its `__name__`)."""
    scope = name if name is not None else getattr(fun, "__name__", "named_call")

    @functools.wraps(fun)
    def wrapped(*args, **kwargs):
        with named_scope(scope):
            return fun(*args, **kwargs)
    return wrapped
