"""Trial stagings that the user's own handlers may have cut short.

A loop over a static range is first staged once as a `scan` (a trial); where that
cannot stand for Python's trips -- a test on the loop index guarding a `raise`, a name
an earlier trip binds -- staging raises an astjax error and the loop is unrolled
instead, each trip seeing Python's values. A user's `except` clause, or a context
manager whose `__exit__` swallows exceptions, can catch that error inside the trial
and go on: the trial then completes on a path Python would not take (the `raise`
taken on every trip). So the converted code reports what user code catches
(`caught`, first in every handler; `guarded_with`, around every `with` item), and a
trial during which user code caught an astjax error ends in `Tainted`: the loop is
unrolled, as the error would have made it (`loop_ops._scan_or_unroll`). The eager
`grad` / `jvp` / `vjp` stage once so too, and again with the values known where
staging needs them (`ad_base._stage`): JAX runs them on concrete values, so the
user's handler does not run there either."""
from __future__ import annotations

import contextlib
import sys
import threading

from ..errors import AstjaxError, ConcretizationError

_state = threading.local()


class Tainted(ConcretizationError):
    """A trial during which user code caught an astjax error (module docstring); a
    ConcretizationError, as the error caught would have been, so what retries on one
    (`loop_ops` unrolls, `ad_base` stages with the values known) retries on it."""


def _active() -> list:
    stack = getattr(_state, "stack", None)
    if stack is None:
        stack = _state.stack = []
    return stack


@contextlib.contextmanager
def trial():
    """Run a trial staging; raises `Tainted` at its end if user code caught an astjax
    error meanwhile. (An enclosing trial is not: unrolled, this loop runs again inside
    it, and a handler catching an astjax error again there taints it then.)"""
    stack = _active()
    stack.append([False])
    try:
        yield
    finally:
        tainted = stack.pop()[0]
    if tainted:
        raise Tainted("a handler of the user's caught an astjax error while the loop was "
                      "staged once")


def caught(exc=None):
    """Called first in a converted `except` clause: notes the exception being handled
    (`sys.exc_info()`'s) when it is astjax's, raised while a trial runs."""
    exc = sys.exc_info()[1] if exc is None else exc
    stack = _active()
    if stack and isinstance(exc, AstjaxError):
        stack[-1][0] = True


def guarded_with(cm):
    """`with cm:` -> `with ag__.guarded_with(cm):` -- the manager unchanged, but an astjax
    error its `__exit__` swallows is noted (`caught`). A value that is no context
    manager is returned as is, for Python's own TypeError at the `with`."""
    t = type(cm)
    return _Guarded(cm) if hasattr(t, "__enter__") and hasattr(t, "__exit__") else cm


class _Guarded:
    __slots__ = ("cm",)

    def __init__(self, cm):
        self.cm = cm

    def __enter__(self):
        return type(self.cm).__enter__(self.cm)

    def __exit__(self, et, ev, tb):
        swallowed = type(self.cm).__exit__(self.cm, et, ev, tb)
        if swallowed and ev is not None:
            caught(ev)
        return swallowed
