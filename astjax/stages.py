"""`astjax.stages` (JAX's `jax.stages`): the stages of an ahead-of-time compile —
`jit(f).trace(*args)` -> `Traced`, `.lower()` -> `Lowered`, `.compile()` -> `Compiled`."""
from __future__ import annotations

from typing import Any

from .api import Compiled, Lowered  # noqa: F401

__all__ = ["Traced", "Lowered", "Compiled", "CompilerOptions"]

CompilerOptions = dict[str, Any]


class Traced:
    """A function staged for one set of arguments: its jaxpr and output structure."""

    def __init__(self, jitted, args, kwargs, jaxpr, out_tree):
        self._jitted, self._args, self._kwargs = jitted, args, kwargs
        self.jaxpr = jaxpr
        self.out_tree = out_tree

    @property
    def fun_name(self):
        return getattr(self._jitted.fun, "__name__", "<unnamed function>")

    @property
    def in_avals(self):
        return [v.aval for v in self.jaxpr.jaxpr.invars]

    @property
    def out_avals(self):
        return [v.aval for v in self.jaxpr.jaxpr.outvars]

    def lower(self):
        """The StableHLO of this staging (`Lowered`)."""
        return self._jitted.lower(*self._args, **self._kwargs)
