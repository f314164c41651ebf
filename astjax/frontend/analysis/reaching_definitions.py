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
their nesting depth).

`cell_reads(fn, cells)` uses the annotations: the reads of a function's closure cells
that may find them unbound."""
from __future__ import annotations

import sys
from collections.abc import Set

import gast

from .. import astbridge
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


# before Python 3.12 (PEP 709) a comprehension is a function of its own: a cell it reads
# is a free variable there
_COMPREHENSIONS = ((gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)
                   if sys.version_info < (3, 12) else ())


def cell_reads(fn, cells) -> list:
    """The reads of `fn`'s closure cells `cells` (names nested functions share with it)
    that may run before the cell is bound -> [(Name or AugAssign node, free)]: in `fn`'s
    own scope
    where a path reaches the read without binding the name (`free` False), and in a
    nested function, lambda or comprehension written where that holds (`free` True:
    it may run then). Needs `resolve(fn)`'s annotations."""
    out = []
    stack = [(s, frozenset(), False, None) for s in fn.body]
    while stack:
        n, shadow, free, definitely = stack.pop()
        if not free and isinstance(n, gast.stmt):
            definitely = getattr(n, "ag_defined_in", (definitely,))[0]
        if isinstance(n, gast.Name):
            if (isinstance(n.ctx, gast.Load) and n.id in cells and n.id not in shadow
                    and definitely is not None and n.id not in definitely):
                out.append((n, free))
            continue
        if isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name):
            t = n.target.id   # `x += v` reads x first: the statement is the read
            if t in cells and t not in shadow and definitely is not None and t not in definitely:
                out.append((n, free))
        if isinstance(n, (gast.FunctionDef, gast.Lambda)):
            a = n.args
            here = list(a.defaults) + [d for d in a.kw_defaults if d is not None]
            here += getattr(n, "decorator_list", [])
            stack.extend((c, shadow, free, definitely) for c in here)
            body = n.body if isinstance(n.body, list) else [n.body]
            params = {p.id for p in a.posonlyargs + a.args + a.kwonlyargs
                      + [a.vararg, a.kwarg] if p is not None}
            inner = shadow | ((params | activity.modified(body)) - declared(body))
            stack.extend((c, inner, True, definitely) for c in body)
            continue
        if isinstance(n, gast.ClassDef):   # its body's scope rules differ: left as is
            continue
        if isinstance(n, _COMPREHENSIONS):
            gens = n.generators
            stack.append((gens[0].iter, shadow, free, definitely))
            inner = shadow | activity.modified([g.target for g in gens])
            rest = [getattr(n, f) for f in ("elt", "key", "value") if hasattr(n, f)]
            rest += [g.iter for g in gens[1:]] + [c for g in gens for c in g.ifs]
            stack.extend((c, inner, True, definitely) for c in rest)
            continue
        stack.extend((c, shadow, free, definitely) for c in astbridge.child_nodes(n))
    return out
