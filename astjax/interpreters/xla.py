"""`astjax.interpreters.xla` (JAX's `jax.interpreters.xla`): `apply_primitive`, the
impl rule libraries give a primitive that has a lowering —
`p.def_impl(functools.partial(xla.apply_primitive, p))` — so that binding it outside
any transformation compiles that one primitive and runs it."""
from __future__ import annotations

from .. import core
from ..codegen import runtime

__all__ = ["apply_primitive"]


def apply_primitive(prim, *args, **params):
    """Run `prim` on `args` alone: compiled through its lowering rule (cached per
    signature) and executed; inside a transformation, an equation of the program."""
    if core.current_builder() is not None:
        return core.bind(prim, *args, **params)
    return runtime.eager_apply(prim, args, params)
