"""Names for parts of a program: `named_scope` (a context manager or decorator) and
`named_call`. The names go on the per-thread name stack (`astjax/name_stack.py`):
every equation staged inside records them in `eqn.source_info.name_stack`, as JAX's
do; they label code for people and tools and never change what a program computes."""
from __future__ import annotations

import contextlib
import functools

from .name_stack import current_name_stack, extend_name_stack

__all__ = ["named_scope", "named_call", "current_name_stack"]


class named_scope(contextlib.ContextDecorator):
    """`with named_scope("layer1"): ...` or `@named_scope("layer1")`: push `name` onto
    the name stack for the code inside."""

    def __init__(self, name: str):
        if not isinstance(name, str):
            raise TypeError("named_scope name argument must be a string.")
        self.name = name
        self._entered = []

    def __enter__(self):
        ctx = extend_name_stack(self.name)
        self._entered.append(ctx)
        return ctx.__enter__()

    def __exit__(self, *exc):
        return self._entered.pop().__exit__(*exc)


def named_call(fun, *, name: str | None = None):
    """`fun`, run inside `named_scope(name)` (default: its `__name__`)."""
    scope = name if name is not None else getattr(fun, "__name__", "named_call")

    @functools.wraps(fun)
    def wrapped(*args, **kwargs):
        with extend_name_stack(scope):
            return fun(*args, **kwargs)
    return wrapped
