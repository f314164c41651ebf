"""Activity analysis: which names a statement or expression reads and modifies.

Nested functions, lambdas and comprehensions are their own scopes: their targets
are not modified in the enclosing scope, and their free names count as reads.
`resolve(node, ctx)` annotates every statement with `ag_read` and `ag_modified`."""
from __future__ import annotations

import gast

class _Collector(gast.NodeVisitor):
    def __init__(self):
        self.read, self.modified = set(), set()

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load):
            self.read.add(node.id)
        elif isinstance(node.ctx, (gast.Store, gast.Del)):
            self.modified.add(node.id)

    def visit_AugAssign(self, node):
        self.visit(node.value)
        self.visit(node.target)
        if isinstance(node.target, gast.Name):
            self.read.add(node.target.id)

    def _scope(self, node):
        inner = _Collector()
        bound = set()
        if isinstance(node, (gast.FunctionDef, gast.Lambda)):
            a = node.args
            for p in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]:
                if p is not None:
                    bound.add(p.id)
            for d in a.defaults + [d for d in a.kw_defaults if d is not None]:
                self.visit(d)
            body = node.body if isinstance(node.body, list) else [node.body]
            for s in body:
                inner.visit(s)
            if isinstance(node, gast.FunctionDef):
                self.modified.add(node.name)
                for d in node.decorator_list:
                    self.visit(d)
        else:
            for g in node.generators:
                inner.visit(g)
            for part in ("elt", "key", "value"):
                if hasattr(node, part):
                    inner.visit(getattr(node, part))
        self.read |= inner.read - bound - inner.modified

    visit_FunctionDef = visit_Lambda = _scope
    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _scope


def names(node) -> tuple[set, set]:
    """(read, modified) names of a node or a list of statements."""
    c = _Collector()
    for n in node if isinstance(node, list) else [node]:
        c.visit(n)
    return c.read, c.modified


class _Modified(_Collector):
    """The modified half of `_Collector` alone: an inner scope's names never count as
    modified outside it, so its body is not walked (issue 14: `modified` of a function
    body no longer re-walks every nested function)."""

    def _scope(self, node):
        if isinstance(node, (gast.FunctionDef, gast.Lambda)):
            a = node.args
            for d in a.defaults + [d for d in a.kw_defaults if d is not None]:
                self.visit(d)
            if isinstance(node, gast.FunctionDef):
                self.modified.add(node.name)
                for d in node.decorator_list:
                    self.visit(d)

    visit_FunctionDef = visit_Lambda = _scope
    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _scope


def modified(nodes) -> set:
    """Names a node or a list of statements binds in its own scope."""
    c = _Modified()
    for n in nodes if isinstance(nodes, list) else [nodes]:
        c.visit(n)
    return c.modified


def read(nodes) -> set:
    return names(nodes)[0]


_MUTATORS = {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault",
             "add", "discard", "popitem", "sort", "reverse"}


def mutated(nodes) -> set:
    """Names whose object a mutating method call changes (`lst.append(y)`):
    loop and branch state must carry them like assignments."""
    out = set()
    for n in nodes if isinstance(nodes, list) else [nodes]:
        for c in gast.walk(n):
            if (isinstance(c, gast.Call) and isinstance(c.func, gast.Attribute)
                    and c.func.attr in _MUTATORS and isinstance(c.func.value, gast.Name)):
                out.add(c.func.value.id)
    return out


def stored_into(nodes) -> set:
    """Names whose object an item or attribute assignment changes (`d[k] = v`,
    `o.a = v`, `del d[k]`)."""
    out = set()
    for n in nodes if isinstance(nodes, list) else [nodes]:
        for c in gast.walk(n):
            if (isinstance(c, (gast.Subscript, gast.Attribute))
                    and isinstance(c.ctx, (gast.Store, gast.Del))
                    and isinstance(c.value, gast.Name)):
                out.add(c.value.id)
    return out


def resolve(node, ctx=None):
    for n in gast.walk(node):
        if isinstance(n, gast.stmt):
            n.ag_read, n.ag_modified = names(n)
    return node
