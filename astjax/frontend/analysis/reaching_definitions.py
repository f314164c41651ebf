"""Reaching definitions, as "defined on every path" / "defined on some path" sets.

`resolve(node, ctx)` annotates each statement of the function's own scope with
`ag_defined_in` = (definitely, maybe): the names bound before the statement runs (a
nested function is resolved on its own, when the converter reaches it). Function
parameters are definitely defined; a loop body may run zero times. The else path of
a guard `if not flag:` that the canonicalizer made (`ag_guard`) is the path that has
already jumped (returned, broken out, continued): nothing after the guard reads a
user name on it, so a name the guarded rest defines counts as defined after the guard."""
from __future__ import annotations

import gast

from . import activity


def _params(fn):
    a = fn.args
    return {p.id for p in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]
            if p is not None}


def _block(stmts, d, m):
    for s in stmts:
        d, m = _stmt(s, d, m)
    return d, m


def _grow(names, more):
    """`names | more`, the same frozenset when nothing is new."""
    return names if more <= names else names | more


def _stmt(s, d, m):
    # d and m are frozensets: the annotation shares them, and a statement that binds
    # nothing new passes them on as they are (issue 14: no copy of both per statement)
    s.ag_defined_in = (d, m)
    if isinstance(s, gast.If):
        d1, m1 = _block(s.body, d, m)
        d2, m2 = _block(s.orelse, d, m)
        if getattr(s, "ag_guard", None):
            return d1, m1 | m2
        return d1 & d2, m1 | m2
    if isinstance(s, (gast.While, gast.For)):
        extra = activity.modified(s.target) if isinstance(s, gast.For) else set()
        inner_d = d | extra
        db, mb = _block(s.body, inner_d, m | extra)
        # run to a fixpoint once more so inner statements see loop-carried names
        _block(s.body, inner_d, mb)
        de, me = _block(s.orelse, d, mb)
        return d, mb | me
    if isinstance(s, gast.Try):
        db, mb = _block(s.body, d, m)
        for h in s.handlers:
            _block(h.body, d, mb)
        return d, mb | activity.modified(s)
    if isinstance(s, gast.With):
        return _block(s.body, d | activity.modified(s.items), m | activity.modified(s.items))
    if isinstance(s, gast.FunctionDef):
        return d | {s.name}, m | {s.name}
    mod = activity.modified(s)
    return _grow(d, mod), _grow(m, mod)


def _resolve_fn(fn):
    p = frozenset(_params(fn))
    body = fn.body if isinstance(fn.body, list) else []
    _block(body, p, p)


def resolve(node, ctx=None):
    if isinstance(node, gast.FunctionDef):
        _resolve_fn(node)
    elif isinstance(node, gast.Lambda):
        pass
    else:
        _block(node if isinstance(node, list) else [node], frozenset(), frozenset())
    return node
