"""Reaching definitions, as "defined on every path" / "defined on some path" sets.

`resolve(node, ctx)` annotates each statement of the function's own scope with
`ag_defined_in` = (definitely, maybe): the names bound before the statement runs (a
nested function is resolved on its own, when the converter reaches it). Function
parameters and the names it declares `nonlocal` / `global` are definitely defined; a
loop body may run zero times. The else path of
a guard `if not flag:` that the canonicalizer made (`ag_guard`) is the path that has
already jumped (returned, broken out, continued): nothing after the guard reads a
user name on it, so a name the guarded rest defines counts as defined after the guard.

The two sets are `Defined` views, not copies (issue 14): statement `i` of a block
sees the names bound on entry to the block plus those its first `i` statements bind,
and one dict per block records where each name is first bound. Materialising a set
per statement made a long straight-line function quadratic (statement `i` has `i`
names defined before it); a membership test costs one dict lookup per enclosing
block instead, and the whole analysis is linear in the function's statements (times
their nesting depth)."""
from __future__ import annotations

from collections.abc import Set

import gast

from . import activity
from .liveness import declared


class Defined(Set):
    """The names bound before statement `index` of a block: those bound on entry
    (`outer`, a set or the view of the enclosing statement), the block's own `extra`
    names (a loop target), and each name whose first binding in the block
    (`first[name]`: the index of the statement after it) is at or before `index`."""
    __slots__ = ("outer", "extra", "first", "index")

    def __init__(self, outer, extra, first, index):
        self.outer, self.extra, self.first, self.index = outer, extra, first, index

    def __contains__(self, name):
        i = self.first.get(name)
        return (i is not None and i <= self.index) or name in self.extra or name in self.outer

    def __iter__(self):   # (tests and debugging: the hot path asks `in`)
        names = set(self.outer) | set(self.extra)
        names.update(n for n, i in self.first.items() if i <= self.index)
        return iter(names)

    def __len__(self):
        return sum(1 for _ in self)

    def __repr__(self):
        return f"Defined({sorted(self)})"


_NOTHING = frozenset()


def _params(fn):
    a = fn.args
    return {p.id for p in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]
            if p is not None}


def _block(stmts, d, m, d_extra=_NOTHING, m_extra=_NOTHING):
    """Annotate a block entered with `d` / `m` (plus the block's own extra names);
    -> the names it binds definitely and maybe (dicts: name -> first statement after
    its binding)."""
    first_d, first_m = {}, {}
    for i, s in enumerate(stmts):
        s.ag_defined_in = dv, mv = Defined(d, d_extra, first_d, i), Defined(m, m_extra, first_m, i)
        bound_d, bound_m = _stmt(s, dv, mv)
        for n in bound_d:
            first_d.setdefault(n, i + 1)
        for n in bound_m:
            first_m.setdefault(n, i + 1)
    return first_d, first_m


def _stmt(s, d, m):
    """-> (names `s` binds on every path, names it binds on some path)."""
    if isinstance(s, gast.If):
        test = activity.modified(s.test)   # `if (t := v) > 0:` binds t before either branch
        d1, m1 = _block(s.body, d, m, test, test)
        d2, m2 = _block(s.orelse, d, m, test, test)
        if getattr(s, "ag_guard", None):
            return d1.keys() | test, m1.keys() | m2.keys() | test
        return (d1.keys() & d2.keys()) | test, m1.keys() | m2.keys() | test
    if isinstance(s, (gast.While, gast.For)):
        extra = activity.modified(s.target) if isinstance(s, gast.For) else set()
        # a later trip sees what any trip bound: the body's maybe-set, filled in once
        # the body is done (the views are read only after the analysis)
        carried = set(extra)
        _, mb = _block(s.body, d, m, extra, carried)
        carried.update(mb)
        _, me = _block(s.orelse, d, m, _NOTHING, carried)
        return _NOTHING, carried | me.keys()
    if isinstance(s, gast.Try):
        # a handler or `finally` may start after any statement of the body: what the
        # body binds is only maybe bound there; `else` runs after the whole body
        db, mb = _block(s.body, d, m)
        done = set(db)
        for h in s.handlers:
            name = {h.name.id} if isinstance(h.name, gast.Name) else set()
            dh, _ = _block(h.body, d, m, name, mb.keys() | name)
            done &= dh.keys() | name
        de, _ = _block(s.orelse, d, m, db.keys(), mb.keys())
        if not s.handlers:
            done |= de.keys()
        df, _ = _block(s.finalbody, d, m, _NOTHING, activity.modified(s))
        return done | df.keys(), activity.modified(s)
    if isinstance(s, gast.With):
        items = activity.modified(s.items)
        db, mb = _block(s.body, d, m, items, items)
        return items | db.keys(), items | mb.keys()
    if isinstance(s, gast.FunctionDef):
        return (s.name,), (s.name,)
    if isinstance(s, gast.Match):   # a capture is bound only if its case matches
        return _NOTHING, activity.modified(s)
    mod = activity.modified(s)
    return mod, mod


def _resolve_fn(fn):
    body = fn.body if isinstance(fn.body, list) else []
    # names declared `nonlocal` / `global` are bound in another scope: defined on entry
    # as far as this one knows (an unbound cell raises Python's NameError where read)
    p = frozenset(_params(fn)) | declared(body)
    _block(body, p, p)


def resolve(node, ctx=None):
    if isinstance(node, gast.FunctionDef):
        _resolve_fn(node)
    elif isinstance(node, gast.Lambda):
        pass
    else:
        _block(node if isinstance(node, list) else [node], _NOTHING, _NOTHING)
    return node
