"""Dead-code elimination: drop equations whose outputs are unused, unless they have
a side effect (`core.has_effects`: host callbacks, also inside nested jaxprs),
recursively inside nested jaxprs' parents, and unused
constvars. Primitives with nested jaxprs (cond/while/scan) have a `dce` rule, in
their own module, that prunes their insides.

Memoization (issue 14): a higher-order primitive's rule runs a pass on its bodies
(`tx.dce_jaxpr`, `tx.jvp_jaxpr`, `tx.partial_eval_jaxpr`), sometimes more than once
with the same arguments: `cond` computes the union of its branches' output masks
first, the `scan`/`while` fixpoints re-run the body until the carry mask is stable.
Each run recurses into nested bodies, so without memoization the work doubles per
nesting level. JAX memoizes the same functions (`weakref_lru_cache` on the jaxpr and
the masks). `pass_memo` keeps the memo for one *outermost* call of a pass on one
thread: nested calls made from the rules share it, and it is dropped when the
outermost call returns. Results are never reused across separate transformations,
so nothing global (config, custom rules, a later edit of an IR object) can make an
entry stale, and no jaxpr is kept alive after its transformation."""
from __future__ import annotations

import functools
import threading
import types

from astjax import core

# name -> number of times the wrapped pass actually ran (misses); tests read it
runs: dict[str, int] = {}
# name -> number of memo hits
hits: dict[str, int] = {}


def _freeze(x):
    if isinstance(x, (list, tuple)):
        return tuple(_freeze(a) for a in x)
    return x


def pass_memo(name):
    """Decorate a pass `f(obj, *masks, **options)`: within one outermost call,
    a repeated call with the same `obj` (by identity) and equal masks/options returns
    the first result. `f.nested()` tells, while `f` runs, whether this call was made
    from inside an outer call of `f` (a rule running the pass on a body)."""
    def deco(fn):
        local = threading.local()
        runs[name] = hits[name] = 0

        @functools.wraps(fn)
        def wrapper(obj, *args, **kwargs):
            memo = getattr(local, "memo", None)
            outermost = memo is None
            if outermost:
                memo = local.memo = {}
            local.depth = getattr(local, "depth", 0) + 1
            try:
                key = (id(obj), _freeze(args), tuple(sorted((k, _freeze(v))
                                                            for k, v in kwargs.items())))
                entry = memo.get(key)
                if entry is not None:
                    hits[name] += 1
                    if not isinstance(entry[1], tuple):   # (one jaxpr: CSE, simplify)
                        return entry[1]
                    return tuple(list(r) if isinstance(r, list) else r for r in entry[1])
                runs[name] += 1
                result = fn(obj, *args, **kwargs)
                memo[key] = (obj, result)
                return result
            finally:
                local.depth -= 1
                if outermost:
                    local.memo = None
        wrapper.nested = lambda: getattr(local, "depth", 0) > 1
        return wrapper
    return deco


def reset_counts():
    """Zero the run/hit counters (for tests that count passes)."""
    for d in (runs, hits):
        for k in d:
            d[k] = 0

# primitive -> rule(eqn, used_outputs: list[bool]) -> (new_eqn or None, used_inputs: list[bool])


@pass_memo("dce_jaxpr")
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
