"""Common-subexpression elimination: two equations with the same primitive, the same
operands and equal params compute the same values (unless they have side effects,
`core.has_effects`), so the second one's outputs are replaced by the first one's. Nested jaxprs are
processed too (each on its own: they are closed)."""
from __future__ import annotations

import numpy as np

from astjax import core
from astjax.core import Literal, Var

from .dce import pass_memo

_NO_CSE = {"rng_bit_generator", "random_bits", "remat2"}


def _atom_key(a):
    if isinstance(a, Literal):
        v = np.asarray(a.val)
        return ("lit", v.dtype.str, v.tobytes(), a.aval.weak_type)
    return ("var", id(a))


def _param_key(v):
    if isinstance(v, core.ClosedJaxpr):   # (a body shared by two calls: one key)
        return ("jaxpr", id(v.jaxpr), tuple(map(id, v.consts)))
    if isinstance(v, core.Jaxpr):
        return ("jaxpr", id(v))
    if isinstance(v, np.ndarray):
        return ("nd", v.dtype.str, v.shape, v.tobytes())
    if isinstance(v, (list, tuple)):
        return tuple(_param_key(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((k, _param_key(x)) for k, x in v.items()))
    hash(v)
    return (type(v).__name__, v)


@pass_memo("cse_jaxpr")   # (one result per jaxpr object: a shared `jit` body stays shared)
def cse_jaxpr(jaxpr: core.Jaxpr) -> core.Jaxpr:
    subst: dict = {}
    seen: dict = {}
    new_eqns = []

    def r(a):
        return subst.get(a, a) if isinstance(a, Var) else a

    for eqn in jaxpr.eqns:
        invars = [r(a) for a in eqn.invars]
        params = core.map_sub_jaxprs(cse_jaxpr, eqn.params)
        eqn = eqn.replace(invars=invars, params=params)
        key = None
        if (eqn.primitive.name not in _NO_CSE and eqn.outvars
                and not core.has_effects(eqn)):
            try:
                key = (eqn.primitive, tuple(_atom_key(a) for a in invars),
                       _param_key(tuple(sorted(params.items()))))
                hash(key)
            except TypeError:
                key = None
        if key is not None and key in seen:
            prev = seen[key]
            for v, w in zip(eqn.outvars, prev.outvars):
                subst[v] = w
            continue
        if key is not None:
            seen[key] = eqn
        new_eqns.append(eqn)
    return core.Jaxpr(jaxpr.constvars, jaxpr.invars, [r(a) for a in jaxpr.outvars], new_eqns)


def cse_closed(cj: core.ClosedJaxpr) -> core.ClosedJaxpr:
    return core.ClosedJaxpr(cse_jaxpr(cj.jaxpr), cj.consts)
