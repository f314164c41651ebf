"""AST templates (AutoGraph's `templates.replace`): code is written as Python text
with placeholder names, parsed once, and placeholders are replaced by AST nodes —
generated code is never built by joining strings."""
from __future__ import annotations

import ast
import functools
import textwrap

import gast

from . import astbridge


@functools.lru_cache(maxsize=None)
def _parse(template: str):
    """The template's tree, without positions (they are meaningless: `locate` sets
    them); parsed and stripped once per template text, copied per use."""
    tree = gast.parse(textwrap.dedent(template))
    for n in ast.walk(tree):
        for attr in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
            if hasattr(n, attr):
                delattr(n, attr)
    return tree


class _Replacer(astbridge.Transformer):
    def __init__(self, repl):
        self.repl = repl

    def _node_for(self, name, ctx):
        v = self.repl[name]
        if isinstance(v, str):
            return gast.Name(id=v, ctx=ctx, annotation=None, type_comment=None)
        v = _fresh(v)
        if isinstance(v, (gast.Name, gast.Tuple, gast.List, gast.Attribute, gast.Subscript)):
            _set_ctx(v, ctx)
        return v

    def visit_Name(self, node):
        if node.id in self.repl:
            return self._node_for(node.id, node.ctx)
        return node

    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        if node.name in self.repl:
            node.name = self.repl[node.name]
        return node

    def visit_arguments(self, node):
        self.generic_visit(node)
        return node

    def visit_Expr(self, node):
        # a bare placeholder statement `body` expands to a list of statements
        if isinstance(node.value, gast.Name) and node.value.id in self.repl:
            v = self.repl[node.value.id]
            if isinstance(v, list):
                return _fresh(v) or [gast.Pass()]
        self.generic_visit(node)
        return node


def _set_ctx(node, ctx):
    if isinstance(node, (gast.Tuple, gast.List)):
        node.ctx = ctx
        for e in node.elts:
            _set_ctx(e, ctx)
    elif hasattr(node, "ctx"):
        node.ctx = ctx


def _fresh(v):
    """A copy of a template tree or of a node put into one (nodes and lists new, leaf
    values and annotations other than lists shared: the analyses replace theirs,
    never change them in place): four times cheaper than `copy.deepcopy`, which goes
    through the pickle protocol per node."""
    if isinstance(v, list):
        return [_fresh(x) for x in v]
    if isinstance(v, gast.AST):
        t = type(v)
        new = t.__new__(t)   # (gast's constructor without arguments sets nothing)
        d = new.__dict__
        for k, x in v.__dict__.items():
            d[k] = _fresh(x)
        return new
    return v


def replace(template: str, **repl) -> list:
    """Statements of `template` with each placeholder name replaced: a str becomes a
    Name, an AST node is inserted as is, a list of statements expands a bare name."""
    tree = _fresh(_parse(template))
    out = []
    for stmt in tree.body:
        r = _Replacer(repl).visit(stmt)
        out.extend(r if isinstance(r, list) else [r])
    return out


def replace_expr(template: str, **repl):
    [stmt] = replace(template, **repl)
    return stmt.value


def locate(nodes, origin):
    """Give every new node `origin`'s source position (errors point at user code).
    Generated nodes span only the origin's first line: CPython places a method
    call at its attribute's *end*, which for a multi-line `if` would be its last
    line. An empty span makes error carets underline the whole line."""
    todo = list(nodes) if isinstance(nodes, list) else [nodes]
    for sub in todo:   # grows while it is read
        todo.extend(astbridge.child_nodes(sub))
        if isinstance(sub, (gast.stmt, gast.expr)) and "lineno" not in sub.__dict__:
            sub.lineno = origin.lineno
            sub.col_offset = origin.col_offset
            same_line = getattr(origin, "end_lineno", None) == origin.lineno
            sub.end_lineno = origin.lineno
            sub.end_col_offset = origin.end_col_offset if same_line else origin.col_offset
    return nodes


def name_tuple(names, ctx=None):
    ctx = ctx or gast.Load()
    return gast.Tuple(elts=[gast.Name(id=n, ctx=ctx, annotation=None, type_comment=None)
                            for n in names], ctx=ctx)


def str_tuple(strs):
    return gast.Tuple(elts=[gast.Constant(value=s, kind=None) for s in strs], ctx=gast.Load())
