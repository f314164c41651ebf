"""Compiler barriers: `optimization_barrier`, the identity on any number of values that
XLA may not look through (no common-subexpression elimination, fusion or code motion
across it: what rematerialization relies on).

The block holds the declaration, NumPy reference (the identity), abstract evaluation,
lowering (`stablehlo.optimization_barrier`), JVP (primals and tangents each through
their own barrier), transpose (the cotangents through a barrier), batching (batch
dimensions pass through), printed source and the `lax.optimization_barrier` wrapper.
"""
from __future__ import annotations

import ast

from .. import core, tree_util
from ..core import bind
from ..pyast import call
from .base import as_operand, instantiate, register

__all__ = ["optimization_barrier_p"]

optimization_barrier_p = core.new_primitive("optimization_barrier", multiple_results=True)


def _barrier_jvp(primals, tangents):
    outs = bind(optimization_barrier_p, *primals)
    return outs, bind(optimization_barrier_p, *[instantiate(t) for t in tangents])


def _barrier_transpose(cts, *args):
    return bind(optimization_barrier_p, *[instantiate(ct) for ct in cts])


def _barrier_source(gen, eqn):
    return call("lax.optimization_barrier",
                [ast.Tuple(elts=[gen.arg(a) for a in eqn.invars], ctx=ast.Load())])


register(optimization_barrier_p,
         impl=lambda *xs: list(xs),
         abstract_eval=lambda *avals: list(avals),
         lowering=lambda ctx, *xs: ctx.op("stablehlo.optimization_barrier", xs),
         jvp=_barrier_jvp, transpose=_barrier_transpose,
         batch=lambda args, dims: (bind(optimization_barrier_p, *args), list(dims)),
         source=_barrier_source)


def optimization_barrier(operand, /):
    """`lax.optimization_barrier`: `operand` (a pytree of arrays) unchanged, with the
    compiler kept from moving, fusing or merging computations across the barrier.
    Outside a compiled function it has no effect."""
    leaves, tree = tree_util.tree_flatten(operand)
    if not leaves:
        return operand
    return tree_util.tree_unflatten(tree, bind(optimization_barrier_p,
                                               *[as_operand(x) for x in leaves]))
