"""`astjax.extend.linear_util` (JAX's `jax.extend.linear_util`): `wrap_init`, the
function wrapper JAX's internal staging APIs take."""
from __future__ import annotations

__all__ = ["wrap_init", "WrappedFun"]


class WrappedFun:
    """A function with fixed keyword parameters; `call_wrapped(*args)` runs it."""

    def __init__(self, f, params=None, debug_info=None):
        self.f = f
        self.params = dict(params or {})
        self.debug_info = debug_info

    def call_wrapped(self, *args):
        return self.f(*args, **self.params)

    __call__ = call_wrapped

    def __repr__(self):
        return f"Wrapped function: {getattr(self.f, '__name__', self.f)!r}"


def wrap_init(f, params=None, *, debug_info=None):
    """Wrap `f` (called with `params` as keywords)."""
    return WrappedFun(f, params, debug_info)
