"""Liveness: which names may be read after a statement before being redefined.

`resolve(node, ctx)` annotates each statement with `ag_live_out` (names live after
it) and `ag_live_in`. Loops are solved to a fixpoint. Names read by nested
functions count as read where the function is defined (conservative)."""
from __future__ import annotations

import gast

from . import activity


def _block(stmts, live_out):
    live = set(live_out)
    for s in reversed(stmts):
        live = _stmt(s, live)
    return live


def _stmt(s, live_out):
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
    s.ag_live_in = frozenset(live)
    return live


def _resolve_fn(fn):
    body = fn.body if isinstance(fn.body, list) else []
    _block(body, set())


def resolve(node, ctx=None):
    if isinstance(node, gast.FunctionDef):
        _resolve_fn(node)
    elif not isinstance(node, gast.Lambda):
        _block(node if isinstance(node, list) else [node], set())
    return node
