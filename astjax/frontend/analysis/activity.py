"""Activity analysis: which names a statement or expression reads and modifies.

A name is modified by every Python binding form: an assignment target of any kind
(`=`, `+=`, `:=`, `for`, `with ... as`, `except ... as`), `del`, `import ... as`,
`from m import x as`, `def`, `class` and a `match` capture. Nested functions, lambdas,
classes and comprehensions are their own scopes: their targets are not modified in
the enclosing scope (except a comprehension's `:=`, which binds there), and their free
names count as reads. `resolve(node, ctx)` annotates every statement with `ag_read`
and `ag_modified`; `binding_sites` says where a block binds each name."""
from __future__ import annotations

import gast

from .. import astbridge

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)
_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)
FREE_READS = "ag_free_reads"   # annotation of a function or lambda: see `free_reads`


def _bound_here(n, t) -> list:
    """The names node `n` (of type `t`) binds by itself -- not through a child
    `Name` node, which the walkers see on their own."""
    if t is gast.Import or t is gast.ImportFrom:
        return [a.asname or a.name.split(".")[0] for a in n.names if a.name != "*"]
    if t is gast.FunctionDef or t is gast.AsyncFunctionDef or t is gast.ClassDef:
        return [n.name]
    if t is gast.MatchAs or t is gast.MatchStar:
        return [n.name] if n.name else []
    if t is gast.MatchMapping:
        return [n.rest] if n.rest else []
    return []


def _scope_outer_parts(n, t) -> list:
    """What a nested scope evaluates in the enclosing one: defaults, decorators, bases
    and keywords of a class."""
    if t is gast.ClassDef:
        return list(n.decorator_list) + list(n.bases) + list(n.keywords)
    a = n.args
    out = list(a.defaults) + [d for d in a.kw_defaults if d is not None]
    return out + list(n.decorator_list) if t is not gast.Lambda else out


def _comprehension_walrus(n) -> list:
    """Targets of `:=` inside a comprehension: they bind in the enclosing scope."""
    return [c.target.id for c in gast.walk(n)
            if isinstance(c, gast.NamedExpr) and isinstance(c.target, gast.Name)]


def _collect(nodes, read, modified, enter_scopes):
    """Add the names `nodes` read and modify to the two sets. A nested function,
    lambda or class modifies its own name (a def) in this scope and reads its defaults,
    decorators and bases here; its free reads count as reads only when `enter_scopes`,
    as do a comprehension's. One explicit stack, no visitor dispatch per node (issue 14)."""
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
        elif t in _SCOPES or t is gast.ClassDef:
            modified.update(_bound_here(n, t))
            stack.extend(_scope_outer_parts(n, t))
            if enter_scopes:
                read |= free_reads(n)
        elif t in _COMPREHENSIONS:
            modified.update(_comprehension_walrus(n))
            if enter_scopes:
                read |= free_reads(n)
        else:
            if t is gast.AugAssign and type(n.target) is gast.Name:
                read.add(n.target.id)   # x += y reads x
            elif t in _BINDING_STATEMENTS:
                modified.update(_bound_here(n, t))
            stack.extend(astbridge.child_nodes(n))


_BINDING_STATEMENTS = frozenset({gast.Import, gast.ImportFrom, gast.MatchAs, gast.MatchStar,
                                 gast.MatchMapping})


def binding_sites(stmts, names) -> dict:
    """name -> the node of the first place (by line) where a block, not its nested
    scopes, binds one of `names` in any binding form. An `except ... as` name, which
    carries no position, is reported at its handler."""
    out, stack = {}, [(n, n) for n in stmts]
    while stack:
        n, at = stack.pop()
        t = type(n)
        if t is gast.Name:
            bound = [n.id] if type(n.ctx) in (gast.Store, gast.Del) else []
        elif t in _SCOPES or t is gast.ClassDef:
            bound = _bound_here(n, t)
            stack.extend((c, c) for c in _scope_outer_parts(n, t))
        elif t in _COMPREHENSIONS:
            bound = _comprehension_walrus(n)
        else:
            bound = _bound_here(n, t)
            here = n if getattr(n, "lineno", None) is not None else at
            stack.extend((c, here) for c in astbridge.child_nodes(n))
        pos = n if getattr(n, "lineno", None) is not None else at
        for name in bound:
            if name in names and (name not in out or (getattr(pos, "lineno", 0) or 0)
                                  < (getattr(out[name], "lineno", 0) or 0)):
                out[name] = pos
    return out


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
    if isinstance(scope, gast.ClassDef):
        bound = set()
        _collect(scope.body, read, modified, True)
    elif isinstance(scope, _SCOPES):
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
    if isinstance(scope, _SCOPES) or isinstance(scope, gast.ClassDef):
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


def unbound(nodes) -> set:
    """Names a block may leave unbound: `del x`, and the name of an `except ... as x`
    handler, which Python deletes when the handler ends (nested scopes excluded)."""
    out, stack = set(), list(nodes if isinstance(nodes, list) else [nodes])
    while stack:
        n = stack.pop()
        t = type(n)
        if t is gast.Name and type(n.ctx) is gast.Del:
            out.add(n.id)
        elif t is gast.ExceptHandler and isinstance(n.name, gast.Name):
            out.add(n.name.id)
        if t not in _SCOPES and t is not gast.ClassDef and t not in _COMPREHENSIONS:
            stack.extend(astbridge.child_nodes(n))
    return out


def resolve(node, ctx=None):
    for n in gast.walk(node):
        if isinstance(n, gast.stmt):
            n.ag_read, n.ag_modified = names(n)
    return node
