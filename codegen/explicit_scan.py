"""A `scan` whose values are typed with layouts over a mesh of Explicit axes, lowered
as JAX 0.10.2 lowers it (`jax/_src/lax/control_flow/loops.py`'s `_scan_impl`, run
through the typed operations): a `while` over an index whose body calls three
functions -- `dynamic_index_in_dim` (the `xs` slice: a `dynamic_slice` and a
`squeeze`), `closed_call` (the scan body) and `dynamic_update_index_in_dim` (the
`ys` update: an `expand_dims` and a `dynamic_update_slice`) -- into `ys` buffers
made by a laid-out `broadcast_in_dim` of zero. Every operation is typed by the rules
of `codegen/explicit.py`, so `codegen/explicit_constraints.py` constrains each of them
to its type, as JAX's lowering does; astjax's own `scan` lowering
(`primitives/scan.py`) slices inside the rule, where no type is known.

Only the scans JAX lowers this way are rewritten: one step per trip (`unroll=1`),
a static length above zero, and some `xs` or `ys` typed.
"""
from __future__ import annotations

import numpy as np

from astjax import core, dtypes
from astjax import sharding_impls as shd
from astjax.primitives.arithmetic import add_p, sub_p
from astjax.primitives.comparisons import lt_p
from astjax.primitives.jit_call import bind_jit
from astjax.primitives.slicing import dynamic_index_in_dim, dynamic_update_index_in_dim
from astjax.primitives.structural import broadcast_in_dim_p
from astjax.primitives.while_loop import bind_while

from . import explicit

__all__ = ["as_loop"]

_I32 = core.ShapedArray((), dtypes.int32)


def as_loop(eqn, env, functions):
    """The equations computing the typed `scan` equation `eqn` as JAX lowers it (its
    operands and results keep their variables; the new variables' types added to
    `env`, Var -> Typed), or None when JAX lowers it otherwise or nothing is typed.
    `functions`: the slicing and updating functions made so far for the program,
    one per signature and types (as JAX's `jit` caches them)."""
    p = eqn.params
    length, nc, nk = p["length"], p["num_consts"], p["num_carry"]
    xs, ys = eqn.invars[nc + nk:], eqn.outvars[nk:]
    if (p["unroll"] != 1 or type(length) is not int or not length or not (
            any(isinstance(x, core.Var) and x in env for x in xs) or any(y in env for y in ys))):
        return None
    body = p["jaxpr"].jaxpr
    types = ([env.get(x) if isinstance(x, core.Var) else None for x in xs],
             [env.get(y) for y in ys],
             [env.get(u) if isinstance(u, core.Var) else None for u in body.outvars[nk:]])
    closed = core.stage(lambda *args: _program(args, p, types, functions),
                        [a.aval for a in eqn.invars])
    j = closed.jaxpr
    types = {v: env[a] for v, a in zip(j.invars, eqn.invars)
             if isinstance(a, core.Var) and a in env}
    explicit.propagate(j.eqns, types)
    rename = {**dict(zip(j.invars, eqn.invars)), **dict(zip(j.outvars, eqn.outvars))}
    for v, t in types.items():
        if v not in rename:
            env[v] = t
    return [e.replace(invars=[rename.get(a, a) if isinstance(a, core.Var) else a
                              for a in e.invars],
                      outvars=[rename.get(v, v) for v in e.outvars]) for e in j.eqns]


def _program(args, p, types, functions):
    """`_scan_impl` on staged `args` (consts, initial carry, xs; `types`: those of
    the xs, ys and the body's ys) -> carry and ys."""
    x_types, y_types, u_types = types
    length, nc, nk, body = p["length"], p["num_consts"], p["num_carry"], p["jaxpr"]
    consts, init, xs = args[:nc], args[nc:nc + nk], args[nc + nk:]
    y_avals = body.out_avals[nk:]
    ys0 = [core.bind(broadcast_in_dim_p, np.zeros((), a.dtype), shape=(length, *a.shape),
                     broadcast_dimensions=(), sharding=None if t is None else
                     shd.NamedSharding(t.mesh, t.pspec))
           for a, t in zip(y_avals, y_types)]
    state = [_I32, *(a.aval for a in init), *(y.aval for y in ys0)]

    def function(fn, avals, ts):
        key = (fn, avals, tuple(None if t is None else (t.spec, t.mesh, t.unreduced,
                                                        t.reduced) for t in ts))
        if key not in functions:
            functions[key] = core.stage(fn, [*avals, _I32])
        return functions[key]
    slicers = [function(_index, (x.aval,), (t,)) for x, t in zip(xs, x_types)]
    updaters = [function(_update, (y.aval, a), (t, u))
                for y, a, t, u in zip(ys0, y_avals, y_types, u_types)]

    def trip(i, *rest):
        carry, bufs = rest[:nk], rest[nk:]
        at = core.bind(sub_p, core.bind(sub_p, np.int32(length), i), np.int32(1)) \
            if p["reverse"] else i
        sliced = [bind_jit(f, [x, at], "dynamic_index_in_dim")[0] for f, x in zip(slicers, xs)]
        outs = bind_jit(body, [*consts, *carry, *sliced], "closed_call")
        new = [bind_jit(f, [b, y, at], "dynamic_update_index_in_dim")[0]
               for f, b, y in zip(updaters, bufs, outs[nk:])]
        return [core.bind(add_p, i, np.int32(1)), *outs[:nk], *new]

    outs = bind_while(core.stage_open(lambda i, *_: [core.bind(lt_p, i, np.int32(length))],
                                      state),
                      core.stage_open(trip, state), [np.int32(0), *init, *ys0])
    return outs[1:]


def _index(x, i):
    return [dynamic_index_in_dim(x, i, 0, keepdims=False)]


def _update(y, u, i):
    return [dynamic_update_index_in_dim(y, u, i, 0)]
