"""`astjax.extend.linear_util` (JAX's `jax.extend.linear_util`): `wrap_init`, the
function wrapper JAX's internal staging APIs take, and `transformation`, the
generator form libraries write wrappers in."""
from __future__ import annotations

from ..util import WrappedFun

__all__ = ["wrap_init", "WrappedFun", "transformation"]


def wrap_init(f, params=None, *, debug_info=None):
    """Wrap `f` (called with `params` as keywords)."""
    return WrappedFun(f, params, debug_info)


def transformation(gen):
    """A wrapper written as a generator (JAX's `lu.transformation`): the result maps
    `(fun, *gen_args)` to a `WrappedFun` that, called with `args`, starts
    `gen(*gen_args, *args)`, calls `fun` with the `(args, kwargs)` it yields first,
    sends it the result, and returns what it yields next."""
    def transform(fun, *gen_args):
        def run(*args):
            steps = gen(*gen_args, *args)
            inner_args, inner_kwargs = next(steps)
            out = fun.f(*inner_args, **{**fun.params, **inner_kwargs})
            return steps.send(out)
        run.__name__ = getattr(gen, "__name__", "transformation")
        return WrappedFun(run, debug_info=fun.debug_info)
    return transform
