"""Dead-code elimination: drop equations whose outputs are unused, unless they have
a side effect (`core.has_effects`: host callbacks, also inside nested jaxprs),
recursively inside nested jaxprs' parents, and unused
constvars. Primitives with nested jaxprs (cond/while/scan) have a `dce` rule, in
their own module, that prunes their insides."""
from __future__ import annotations

import types

from astjax import core

# primitive -> rule(eqn, used_outputs: list[bool]) -> (new_eqn or None, used_inputs: list[bool])


def dce_jaxpr(jaxpr: core.Jaxpr, used_outputs=None, prune_invars=False):
    """Returns (new_jaxpr, used_invars). Constvars that become unused are dropped
    only through `dce_closed`."""
    used = set()
    outvars = jaxpr.outvars
    if used_outputs is not None:
        outvars = [v for v, u in zip(jaxpr.outvars, used_outputs) if u]
    for v in outvars:
        if isinstance(v, core.Var):
            used.add(v)
    new_eqns = []
    for eqn in reversed(jaxpr.eqns):
        flags = [v in used for v in eqn.outvars]
        effects = core.has_effects(eqn)
        if not any(flags) and not effects:
            continue
        rule = core.rule(eqn.primitive, "dce", tx=tx, optional=True)
        old_invars = eqn.invars
        if rule is not None:
            kept, used_in = rule(eqn, flags)  # used_in is over the *old* invars
            if kept is None and effects:  # a rule may only prune a body with no effects
                kept, used_in = eqn, [True] * len(eqn.invars)
            eqn = kept
        else:
            used_in = [True] * len(eqn.invars)
        if eqn is None:
            continue
        new_eqns.append(eqn)
        for a, u in zip(old_invars, used_in):
            if u and isinstance(a, core.Var):
                used.add(a)
    new_eqns.reverse()
    used_invars = [v in used for v in jaxpr.invars]
    invars = [v for v, u in zip(jaxpr.invars, used_invars) if u] if prune_invars else jaxpr.invars
    new = core.Jaxpr(jaxpr.constvars, invars, outvars, new_eqns)
    return new, used_invars


def dce_closed(cj: core.ClosedJaxpr) -> core.ClosedJaxpr:
    jaxpr, _ = dce_jaxpr(cj.jaxpr)
    used = set()
    for e in jaxpr.eqns:
        used.update(a for a in e.invars if isinstance(a, core.Var))
    used.update(a for a in jaxpr.outvars if isinstance(a, core.Var))
    keep = [(v, c) for v, c in zip(jaxpr.constvars, cj.consts) if v in used]
    jaxpr = core.Jaxpr([v for v, _ in keep], jaxpr.invars, jaxpr.outvars, jaxpr.eqns)
    return core.ClosedJaxpr(jaxpr, [c for _, c in keep])


# What the rules of higher-order primitives receive as `tx` (see core.Primitive).
tx = types.SimpleNamespace(dce_jaxpr=dce_jaxpr)
