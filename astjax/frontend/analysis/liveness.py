"""Liveness: which names may be read after a statement before being redefined.

`resolve(node, ctx)` annotates each statement with `ag_live_out` (names live after
it) and `ag_live_in`. Loops are solved to a fixpoint. A nested function reads
its free names wherever it may be called: they are live wherever the function's
name is live (and names it writes with `nonlocal` too, since it reads the cell)."""
from __future__ import annotations

import gast

from . import activity


_closures: list[dict] = [{}]   # per function being resolved: name -> names its closure reads


def closure_names(fn_body) -> dict:
    """name -> free names (reads and `nonlocal` writes) of each nested function or
    lambda bound to that name in a function body."""
    out: dict = {}
    for n in gast.walk(gast.Module(body=list(fn_body), type_ignores=[])):
        if isinstance(n, gast.FunctionDef):
            out.setdefault(n.name, set()).update(free_names(n))
        elif (isinstance(n, gast.Assign) and isinstance(n.value, gast.Lambda)
              and len(n.targets) == 1 and isinstance(n.targets[0], gast.Name)):
            out.setdefault(n.targets[0].id, set()).update(free_names(n.value))
    return out


def free_names(fn) -> set:
    """Names a nested function or lambda reads from, or writes to, enclosing scopes."""
    read, _ = activity.names(fn)
    return set(read) | nonlocal_names(fn)


def nonlocal_names(fn) -> set:
    out = set()
    for n in gast.walk(fn):
        if isinstance(n, gast.Nonlocal):
            out.update(n.names)
    return out


def _with_closures(live):
    live = set(live)
    closures = _closures[-1]
    todo = [n for n in live if n in closures]
    while todo:
        for v in closures[todo.pop()]:
            if v not in live:
                live.add(v)
                if v in closures:
                    todo.append(v)
    return live


def _block(stmts, live_out):
    live = set(live_out)
    for s in reversed(stmts):
        live = _stmt(s, live)
    return live


def _stmt(s, live_out):
    live_out = _with_closures(live_out)
    s.ag_live_out = frozenset(live_out)
    if isinstance(s, gast.If):
        live = activity.read(s.test) | _block(s.body, live_out) | _block(s.orelse, live_out)
    elif isinstance(s, gast.While):
        test = activity.read(s.test)
        after = _block(s.orelse, live_out) | set(live_out)
        live = test | after
        while True:
            new = test | after | _block(s.body, live)
            if new <= live:
                break
            live |= new
    elif isinstance(s, gast.For):
        it = activity.read(s.iter)
        target = activity.modified(s.target)
        # flags of an early exit (canonicalize's extra test) are read before each trip
        extra = set(getattr(s, "ag_extra_test", ()))
        after = _block(s.orelse, live_out) | set(live_out)
        live = set(after) | extra
        while True:
            body_in = _block(s.body, live)
            new = after | (body_in - target)
            if new <= live:
                break
            live |= new
        live = live | it
    elif isinstance(s, gast.FunctionDef):
        _resolve_fn(s)
        read, _ = activity.names(s)
        live = (set(live_out) - {s.name}) | read
    elif isinstance(s, gast.Try):
        live = _block(s.body, live_out) | set(live_out)
        for h in s.handlers:
            live |= _block(h.body, live_out)
        live |= _block(s.finalbody, live_out)
    elif isinstance(s, gast.With):
        live = _block(s.body, live_out) | activity.read(s.items)
    else:
        read, mod = activity.names(s)
        if isinstance(s, gast.AugAssign):
            mod = set()  # x += y reads x
        live = (set(live_out) - mod) | read
    live = _with_closures(live)
    s.ag_live_in = frozenset(live)
    return live


def _resolve_fn(fn):
    body = fn.body if isinstance(fn.body, list) else []
    _closures.append(closure_names(body))
    try:
        _block(body, set())
    finally:
        _closures.pop()


def resolve(node, ctx=None):
    if isinstance(node, gast.FunctionDef):
        _resolve_fn(node)
    elif not isinstance(node, gast.Lambda):
        _block(node if isinstance(node, list) else [node], set())
    return node
