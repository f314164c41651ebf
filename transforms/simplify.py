"""Algebraic simplification, so derivative IR is small and readable:

- `x * 1`, `1 * x`, `x / 1`, `x + 0`, `0 + x`, `x - 0`, `add_any` with a zero
  (where the result has x's shape and dtype) forward x;
- `x * 0`, `0 * x` with a *literal* zero are left alone (NaN/inf semantics), but a
  multiplication by a broadcast zero produced by AD is not generated in the first place
  (symbolic zeros);
- `neg (neg x)` -> x;
- identity `convert_element_type` / `reshape` / `broadcast_in_dim` / `transpose` /
  `squeeze`/`copy` forward their operand.

"One" and "zero" are scalar literals or values broadcast from them. Nested jaxprs
(cond branches, loop bodies) are simplified too; their signatures never change, weak
types of outputs included.
"""
from __future__ import annotations

import numpy as np

from astjax import core
from astjax.core import Literal, Var

from .dce import pass_memo
from astjax.primitives import elementwise as ew
from astjax.primitives import structural as st


def _const_value(a, consts):
    """The scalar value `a` is known to hold everywhere, or None."""
    if isinstance(a, Literal):
        v = np.asarray(a.val)
        return v.item() if v.shape == () else None
    return consts.get(a)


def _same_type(a, b):
    # weak types too: an equation re-evaluated after forwarding (a re-staged derivative)
    # computes its weak type from its operands' again, so a dropped weak -> strong
    # conversion (jnp.sum's) or its transpose would change what the user sees
    return a.aval.shape == b.aval.shape and a.aval.dtype == b.aval.dtype and \
        a.aval.weak_type == b.aval.weak_type


@pass_memo("simplify_jaxpr")   # (one result per jaxpr object: a shared `jit` body stays shared)
def simplify_jaxpr(jaxpr: core.Jaxpr) -> core.Jaxpr:
    subst: dict = {}
    consts: dict = {}   # Var -> scalar value it holds everywhere
    producer: dict = {}
    new_eqns = []

    def r(a):
        while isinstance(a, Var) and a in subst:
            a = subst[a]
        return a

    for eqn in jaxpr.eqns:
        invars = [r(a) for a in eqn.invars]
        params = core.map_sub_jaxprs(simplify_jaxpr, eqn.params)
        eqn = eqn.replace(invars=invars, params=params)
        p = eqn.primitive
        out = eqn.outvars[0] if eqn.outvars else None
        fwd = None
        if p in (ew.mul_p,):
            x, y = invars
            if _const_value(y, consts) == 1 and _same_type(x, out):
                fwd = x
            elif _const_value(x, consts) == 1 and _same_type(y, out):
                fwd = y
        elif p is ew.div_p:
            x, y = invars
            if _const_value(y, consts) == 1 and _same_type(x, out):
                fwd = x
        elif p in (ew.add_p, ew.add_any_p):
            x, y = invars
            if _const_value(y, consts) == 0 and _same_type(x, out):
                fwd = x
            elif _const_value(x, consts) == 0 and _same_type(y, out):
                fwd = y
        elif p is ew.sub_p:
            x, y = invars
            if _const_value(y, consts) == 0 and _same_type(x, out):
                fwd = x
        elif p is ew.neg_p:
            x, = invars
            e = producer.get(x)
            if e is not None and e.primitive is ew.neg_p:
                fwd = e.invars[0]
        elif p in (st.convert_element_type_p, st.reshape_p, st.squeeze_p, st.copy_p):
            x = invars[0]
            if _same_type(x, out) and p is not st.copy_p and \
                    eqn.params.get("dimensions") is None:   # (a reshape's permutation moves data)
                fwd = x
        elif p is st.broadcast_in_dim_p:
            x, = invars
            if _same_type(x, out):
                fwd = x
            else:
                v = _const_value(x, consts)
                if v is not None:
                    consts[out] = v
        elif p is st.transpose_p:
            if tuple(params["permutation"]) == tuple(range(len(params["permutation"]))):
                fwd = invars[0]
        if fwd is not None and out is not None:
            subst[out] = fwd
            continue
        if p is st.convert_element_type_p and out is not None:
            v = _const_value(invars[0], consts)
            if v is not None and not isinstance(v, complex):
                consts[out] = v
        for v in eqn.outvars:
            producer[v] = eqn
        new_eqns.append(eqn)
    outvars = [_keep_weak(a, r(a), new_eqns, producer) for a in jaxpr.outvars]
    return core.Jaxpr(jaxpr.constvars, jaxpr.invars, outvars, new_eqns)


def _keep_weak(old, new, eqns, producer):
    """`new` standing for output `old`, with `old`'s weak type: forwarding ignores weak
    types (they decide no dtype inside), but an output's is what the user sees.
    `producer`: var -> the kept equation defining it (one lookup per output, not a
    scan of the equations: issue 14)."""
    if new is old or not isinstance(new, (Var, Literal)) or \
            new.aval.weak_type == old.aval.weak_type:
        return new
    if isinstance(new, Literal):
        return Literal(new.val, old.aval)
    if old in producer:  # an output listed twice: converted once
        return old
    eqn = core.Eqn(st.convert_element_type_p, [new], [old],
                   dict(new_dtype=old.aval.dtype, weak_type=old.aval.weak_type))
    eqns.append(eqn)
    producer[old] = eqn
    return old


def simplify_closed(cj: core.ClosedJaxpr) -> core.ClosedJaxpr:
    return core.ClosedJaxpr(simplify_jaxpr(cj.jaxpr), cj.consts)
