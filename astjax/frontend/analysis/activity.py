"""Activity analysis: which names a statement or expression reads and modifies.

Nested functions, lambdas and comprehensions are their own scopes: their targets
are not modified in the enclosing scope, and their free names count as reads.
`resolve(node, ctx)` annotates every statement with `ag_read` and `ag_modified`."""
from __future__ import annotations

import gast

from .. import astbridge

_SCOPES = (gast.FunctionDef, gast.Lambda)
_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)
FREE_READS = "ag_free_reads"   # annotation of a function or lambda: see `free_reads`


def _collect(nodes, read, modified, enter_scopes):
    """Add the names `nodes` read and modify to the two sets. A nested function or
    lambda modifies its own name (a def) in this scope and reads its defaults and
    decorators here; its free reads count as reads only when `enter_scopes`, as do a
    comprehension's. One explicit stack, no visitor dispatch per node (issue 14)."""
    stack = list(nodes)
    while stack:
        n = stack.pop()
        t = type(n)
        if t is gast.Name:
            ctx = type(n.ctx)
            if ctx is gast.Load:
                read.add(n.id)
            elif ctx is gast.Store or ctx is gast.Del:
                modified.add(n.id)
        elif t in _SCOPES:
            a = n.args
            stack.extend(a.defaults)
            stack.extend(d for d in a.kw_defaults if d is not None)
            if t is gast.FunctionDef:
                modified.add(n.name)
                stack.extend(n.decorator_list)
            if enter_scopes:
                read |= free_reads(n)
        elif t in _COMPREHENSIONS:
            if enter_scopes:
                read |= free_reads(n)
        else:
            if t is gast.AugAssign and type(n.target) is gast.Name:
                read.add(n.target.id)   # x += y reads x
            stack.extend(astbridge.child_nodes(n))


def free_reads(scope) -> frozenset:
    """Names a function, lambda or comprehension reads from enclosing scopes (its
    reads that are neither its parameters nor bound in it). Kept on a function or
    lambda as its `ag_free_reads` annotation, so a scope is walked once however many
    enclosing scopes ask (bottom-up: a chain of nested functions is linear, issue 14);
    the converter drops it (`forget`) when it rewrites that function."""
    d = scope.__dict__
    cached = d.get(FREE_READS)
    if cached is not None:
        return cached
    read, modified = set(), set()
    if isinstance(scope, _SCOPES):
        a = scope.args
        bound = {p.id for p in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]
                 if p is not None}
        _collect(scope.body if isinstance(scope.body, list) else [scope.body], read,
                 modified, True)
    else:
        bound = set()
        parts = list(scope.generators) + [getattr(scope, p) for p in ("elt", "key", "value")
                                          if hasattr(scope, p)]
        _collect(parts, read, modified, True)
    out = frozenset(read - bound - modified)
    if isinstance(scope, _SCOPES):
        d[FREE_READS] = out
    return out


def forget(scope):
    """Drop the free reads kept on a function or lambda that is about to change."""
    scope.__dict__.pop(FREE_READS, None)


def names(node) -> tuple[set, set]:
    """(read, modified) names of a node or a list of statements."""
    read, modified = set(), set()
    _collect(node if isinstance(node, list) else [node], read, modified, True)
    return read, modified


def modified(nodes) -> set:
    """Names a node or a list of statements binds in its own scope (an inner scope's
    names never count as modified outside it, so its body is not walked)."""
    read, out = set(), set()
    _collect(nodes if isinstance(nodes, list) else [nodes], read, out, False)
    return out


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


def changed_object(node):
    """(name, what) when `node` changes the object a plain name refers to in place --
    a mutating method call `name.append(...)` or an item store `name[k] = v` /
    `del name[k]` -- else None."""
    if (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)
            and node.func.attr in _MUTATORS and isinstance(node.func.value, gast.Name)):
        return node.func.value.id, f"`.{node.func.attr}(...)`"
    if (isinstance(node, gast.Subscript) and isinstance(node.ctx, (gast.Store, gast.Del))
            and isinstance(node.value, gast.Name)):
        return node.value.id, "an item assignment"
    return None


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
