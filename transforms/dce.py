"""Dead-code elimination: drop equations whose outputs are unused (all astjax
primitives are pure), recursively inside nested jaxprs' parents, and unused
constvars. Nested jaxprs with their own rules (cond/while/scan) register a
`dce_rules` entry that prunes their insides."""
from __future__ import annotations

import types

from astjax import core

# primitive -> rule(eqn, used_outputs: list[bool]) -> (new_eqn or None, used_inputs: list[bool])
dce_rules = core.dce_rules


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
        if not any(flags):
            continue
        rule = core.rule(eqn.primitive, "dce", tx=tx, optional=True)
        old_invars = eqn.invars
        if rule is not None:
            eqn, used_in = rule(eqn, flags)  # used_in is over the *old* invars
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


def _split(xs, *ns):
    out, i = [], 0
    for n in ns:
        out.append(list(xs[i:i + n]))
        i += n
    out.append(list(xs[i:]))
    return out


# What the rules of higher-order primitives receive as `tx` (see core.Primitive).
tx = types.SimpleNamespace(dce_jaxpr=dce_jaxpr)

from astjax.primitives import control as _ctl  # noqa: E402

# ----------------------------------------------------------------------- DCE rules


def _dce_sub(closed, used_outputs, prune_invars=True):
    j, used_in = dce_jaxpr(closed.jaxpr, used_outputs, prune_invars=prune_invars)
    return core.ClosedJaxpr(j, closed.consts), used_in


def _cond_dce(eqn, used_outputs):
    branches = eqn.params["branches"]
    n_ops = len(eqn.invars) - 1
    used_in = [False] * n_ops
    for br in branches:
        _, u = dce_jaxpr(br.jaxpr, used_outputs)
        used_in = [a or b for a, b in zip(used_in, u)]
    new_br = []
    for br in branches:
        j, _ = dce_jaxpr(br.jaxpr, used_outputs)
        j = core.Jaxpr(j.constvars, [v for v, u in zip(j.invars, used_in) if u], j.outvars, j.eqns)
        new_br.append(core.ClosedJaxpr(j, br.consts))
    new = eqn.replace(invars=[eqn.invars[0]] + [a for a, u in zip(eqn.invars[1:], used_in) if u],
                      outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u],
                      params=dict(eqn.params, branches=tuple(new_br)))
    return new, [True] + used_in


def _scan_dce(eqn, used_outputs):
    p = eqn.params
    body = p["jaxpr"]
    nc, nk = p["num_consts"], p["num_carry"]
    used_k = list(used_outputs[:nk])
    used_y = list(used_outputs[nk:])
    while True:
        _, used_in = dce_jaxpr(body.jaxpr, used_k + used_y)
        new = [a or b for a, b in zip(used_k, used_in[nc:nc + nk])]
        if new == used_k:
            break
        used_k = new
    j, used_in = dce_jaxpr(body.jaxpr, used_k + used_y)
    used_c, _, used_x = _split(used_in, nc, nk)
    keep_in = used_c + used_k + used_x
    j = core.Jaxpr(j.constvars, [v for v, u in zip(j.invars, keep_in) if u], j.outvars, j.eqns)
    new = eqn.replace(invars=[a for a, u in zip(eqn.invars, keep_in) if u],
                      outvars=[v for v, u in zip(eqn.outvars, used_k + used_y) if u],
                      params=dict(p, jaxpr=core.ClosedJaxpr(j, body.consts),
                                  num_consts=sum(used_c), num_carry=sum(used_k)))
    if not any(used_k + used_y):
        return None, [False] * len(eqn.invars)
    return new, keep_in


def _while_dce(eqn, used_outputs):
    p = eqn.params
    ncc, nbc = p["cond_nconsts"], p["body_nconsts"]
    body, cond = p["body_jaxpr"], p["cond_jaxpr"]
    cj, cond_in = dce_jaxpr(cond.jaxpr)
    cond_used = cond_in[ncc:]
    used_k = [a or b for a, b in zip(used_outputs, cond_used)]
    while True:
        _, used_in = dce_jaxpr(body.jaxpr, used_k)
        new = [a or b for a, b in zip(used_k, used_in[nbc:])]
        if new == used_k:
            break
        used_k = new
    bj, used_in = dce_jaxpr(body.jaxpr, used_k)
    used_bc = used_in[:nbc]
    bj = core.Jaxpr(bj.constvars, [v for v, u in zip(bj.invars, used_bc + used_k) if u],
                    bj.outvars, bj.eqns)
    used_cc = cond_in[:ncc]
    cj = core.Jaxpr(cj.constvars, [v for v, u in zip(cj.invars, used_cc + used_k) if u],
                    cj.outvars, cj.eqns)
    cc, bc, carry = _split(eqn.invars, ncc, nbc)
    keep = used_cc + used_bc + used_k
    new = eqn.replace(invars=[a for a, u in zip(eqn.invars, keep) if u],
                      outvars=[v for v, u in zip(eqn.outvars, used_k) if u],
                      params=dict(p, cond_jaxpr=core.ClosedJaxpr(cj, cond.consts),
                                  body_jaxpr=core.ClosedJaxpr(bj, body.consts),
                                  cond_nconsts=sum(used_cc), body_nconsts=sum(used_bc)))
    return new, keep


dce_rules[_ctl.cond_p] = _cond_dce
dce_rules[_ctl.scan_p] = _scan_dce
dce_rules[_ctl.while_p] = _while_dce
