"""Compiler barriers: `optimization_barrier`, the identity on any number of values that
XLA may not look through (no common-subexpression elimination, fusion or code motion
across it: what rematerialization relies on), and `dce_sink`, which marks a value as
used so that dead-code elimination keeps the computation producing it.

Each block holds the declaration, NumPy reference, abstract evaluation, lowering
(`stablehlo.optimization_barrier`; for `dce_sink` nothing, or with `prevent_mlir_dce`
a side-effecting custom call), JVP, transpose, batching, printed source and the `lax`
wrapper.
"""
from __future__ import annotations

import ast

from .. import core, tree_util
from ..core import bind
from ..pyast import call, pyconst
from .base import as_operand, instantiate, register

__all__ = ["optimization_barrier_p", "dce_sink_p"]

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


# ------------------------------------------------------------------------ dce_sink

dce_sink_p = core.new_primitive("dce_sink", multiple_results=True)
dce_sink_p.effectful = True  # no outputs, yet never removed by DCE


def _dce_sink_lowering(ctx, x, *, prevent_mlir_dce=False):
    if not prevent_mlir_dce:
        return []
    attrs = {"call_target_name": '"dce_sink"', "api_version": "4 : i32",
             "has_side_effect": "true", "backend_config": "{}"}
    return ctx.op("stablehlo.custom_call", [x], [], attrs)


register(dce_sink_p,
         impl=lambda x, **params: [],
         abstract_eval=lambda x, **params: [],
         lowering=_dce_sink_lowering,
         transpose=lambda cts, x, **params: [None],
         batch=lambda args, dims, **params: (bind(dce_sink_p, *args, **params), []),
         source=lambda gen, eqn: call(
             "lax.dce_sink", [gen.arg(eqn.invars[0])],
             prevent_mlir_dce=pyconst(bool(eqn.params.get("prevent_mlir_dce", False)))))
dce_sink_p.jvp = lambda primals, tangents, **params: (bind(dce_sink_p, *primals, **params), [])


def dce_sink(val, *, prevent_mlir_dce=False):
    """`lax.dce_sink`: mark every leaf of `val` as used, so dead-code elimination
    keeps what computes it (returns None); with `prevent_mlir_dce`, the compiled
    program keeps it too."""
    for leaf in tree_util.tree_leaves(val):
        bind(dce_sink_p, as_operand(leaf), prevent_mlir_dce=bool(prevent_mlir_dce))
