"""Python `ast` <-> `gast` trees, in one recursive pass each way, and the child
iteration the analyses share (issue 14).

The front end reads a function as a Python `ast` tree (one parse per file) and works
on `gast`; `compile` wants `ast` again. gast's own translators are generic
`NodeTransformer`s (a method lookup, a keyword constructor and an attribute loop per
node), and `ast.fix_missing_locations` is one more walk of the converted tree: about a
quarter of converting a small function. These two functions build the very same trees
(field for field, positions included) with one precomputed plan per node class:

- `to_gast(node)` is `gast.ast_to_gast(node)`;
- `to_ast(node)` is `ast.fix_missing_locations(gast.gast_to_ast(node))`.

gast's translation rules on Python >= 3.11: a parameter (`ast.arg`) is a `gast.Name`
in the `Param` context with its annotation, every `Name` has `annotation` and
`type_comment` (None), an exception handler's name is a `Name` in the `Store` context,
definitions without type parameters get `type_params=[]`; every other node maps field
for field to the class of the same name. `tests/test_perf_bridge.py` checks both
directions against gast on real files.

`child_nodes(node)` is `list(gast.iter_child_nodes(node))` from the node's fields
directly, without a generator per node.
"""
from __future__ import annotations

import ast

import gast

_LOC = ("lineno", "col_offset", "end_lineno", "end_col_offset")
_DEFS_WITH_TYPE_PARAMS = ("FunctionDef", "AsyncFunctionDef", "ClassDef")
_TYPE_VARS = ("TypeVar", "ParamSpec", "TypeVarTuple")


# ---- ast -> gast -------------------------------------------------------------------

def _gast_plan(cls):
    """(gast class, fields to copy, fields gast adds: name -> a fresh value's maker,
    whether positions follow `ast.copy_location`) for an ast class."""
    target = getattr(gast, cls.__name__, None)
    if target is None:
        return None
    added = {}
    if cls.__name__ in _DEFS_WITH_TYPE_PARAMS and "type_params" not in cls._fields:
        added["type_params"] = list   # gast's own rule for definitions before 3.12
    elif cls.__name__ in _TYPE_VARS and "default_value" not in cls._fields:
        added["default_value"] = type(None)
    return target, tuple(cls._fields), tuple(added.items()), bool(added)


_GAST_PLANS: dict = {}


def _g(v):
    if isinstance(v, ast.AST):
        return to_gast(v)
    if isinstance(v, list):
        return [_g(x) for x in v]
    return v


def _copy_location(d, src):
    """`ast.copy_location` on instance dicts: a start position is copied when it is
    not None, an end position whenever present."""
    for a in _LOC:
        if a in src:
            v = src[a]
            if v is not None or a.startswith("end_"):
                d[a] = v


def make(cls, **fields):
    """A node of `cls` with `fields` (all of them: nothing is filled in), without the
    keyword constructor's per-field checks: what the converters build per statement
    (issue 14: a third of the cost of `ag__.call(...)` wrappers)."""
    new = cls.__new__(cls)
    new.__dict__.update(fields)
    return new


def copy_location(new, old):
    """`ast.copy_location(new, old)` for expression and statement nodes, on their
    dicts."""
    _copy_location(new.__dict__, old.__dict__)
    return new


def _located_gast(cls, fields, node):
    """A gast node of `cls` with `fields` and `node`'s position (`ast.copy_location`)."""
    new = cls.__new__(cls)
    d = new.__dict__
    d.update(fields)
    _copy_location(d, node.__dict__)
    return new


# contexts and operators carry nothing (no fields, no positions): one shared gast
# instance each, as `ast.parse` shares its own
_GAST_SHARED = {c: getattr(gast, c.__name__)() for c in (
    ast.Load, ast.Store, ast.Del, ast.And, ast.Or, ast.Add, ast.Sub, ast.Mult, ast.MatMult,
    ast.Div, ast.Mod, ast.Pow, ast.LShift, ast.RShift, ast.BitOr, ast.BitXor, ast.BitAnd,
    ast.FloorDiv, ast.Invert, ast.Not, ast.UAdd, ast.USub, ast.Eq, ast.NotEq, ast.Lt,
    ast.LtE, ast.Gt, ast.GtE, ast.Is, ast.IsNot, ast.In, ast.NotIn)}


_PARAM = gast.Param()   # (a parameter's context: gast's own, shared likewise)


def to_gast(node):
    """`gast.ast_to_gast(node)`, in one pass."""
    t = type(node)
    if t is ast.Name:
        src = node.__dict__
        ctx = _GAST_SHARED[type(node.ctx)]
        if src.get("lineno") is None or src.get("col_offset") is None:   # not parsed
            return _located_gast(gast.Name, {"id": node.id, "ctx": ctx, "annotation": None,
                                             "type_comment": None}, node)
        new = gast.Name.__new__(gast.Name)
        d = new.__dict__
        d.update(src)   # id and the position (what `ast.copy_location` copies here)
        d["ctx"] = ctx
        d["annotation"] = d["type_comment"] = None
        return new
    shared = _GAST_SHARED.get(t)
    if shared is not None:
        return shared
    if t is ast.arg:
        return _located_gast(gast.Name, {"id": node.arg, "ctx": _PARAM,
                                         "annotation": _g(node.annotation),
                                         "type_comment": _g(node.type_comment)}, node)
    if t is ast.ExceptHandler and node.name:
        name = gast.Name(node.name, gast.Store(), None, None)
        return _located_gast(gast.ExceptHandler, {"type": _g(node.type), "name": name,
                                                  "body": _g(node.body)}, node)
    plan = _GAST_PLANS.get(t)
    if plan is None:
        if t not in _GAST_PLANS:
            plan = _GAST_PLANS[t] = _gast_plan(t)
        if plan is None:
            return None   # a node gast has no class for (gast drops it too)
    cls, fields, added, rebuilt = plan
    new = cls.__new__(cls)
    d = new.__dict__
    src = node.__dict__
    if rebuilt:   # gast builds these itself, then copies the location
        for k, make in added:
            d[k] = make()
        _copy_location(d, src)
    else:         # gast's generic translation copies every field and position present
        d.update(src)
    for k in fields:
        if k in src:
            v = src[k]
            if isinstance(v, ast.AST):
                d[k] = to_gast(v)
            elif type(v) is list:
                d[k] = [to_gast(x) if isinstance(x, ast.AST) else _g(x) for x in v]
            elif rebuilt:
                d[k] = v
        else:   # a node made without this optional field: gast reads ast's default
            d[k] = _g(getattr(node, k, None))
    return new


# ---- gast -> ast, with fix_missing_locations, in place ------------------------------

def _ast_plan(cls):
    """(ast class, the fields ast shares with gast, gast's fields ast lacks, the
    attributes an ast node of the class may hold, whether it has positions, whether
    they are taken as gast's generic translation takes them -- every one present --
    rather than by `ast.copy_location`'s rule) for a gast class; a class that is
    already ast's: None in the first place."""
    target = getattr(ast, cls.__name__, None)
    if target is None or target is cls:
        return (None,) if target is cls else None
    return (target, tuple(f for f in cls._fields if f in target._fields),
            tuple(f for f in cls._fields if f not in target._fields),
            len(target._fields) + len(target._attributes),
            "lineno" in target._attributes, cls not in _COPY_LOCATION)


_AST_PLANS: dict = {}


def to_ast(node):
    """`ast.fix_missing_locations(gast.gast_to_ast(node))`, in one pass, made of
    `node`'s own objects: each gast node becomes the ast node of its class in place
    (its class changed, the fields ast lacks dropped), so `node` is consumed. Building
    a second tree cost a new node and a dict copy per node (issue 14: 600 statements,
    a quarter of the translation)."""
    return _to_ast(node, (1, 0, 1, 0))


def _fill(d, loc, copy_all):
    """Position a node from its own attributes `d` (`copy_all`: every one present, as
    gast's generic translation takes them; else `ast.copy_location`'s rule, which
    drops a start that is None), then fill what is missing from the parent's `loc` as
    `ast.fix_missing_locations` does. -> the position the children inherit."""
    if not copy_all:
        if "lineno" in d and d["lineno"] is None:
            del d["lineno"]
        if "col_offset" in d and d["col_offset"] is None:
            del d["col_offset"]
    line, col, end_line, end_col = loc
    # a start present (None too) is kept, an end only when not None; else the parent's
    line = d.setdefault("lineno", line)
    col = d.setdefault("col_offset", col)
    end_line = d["end_lineno"] = end_line if d.get("end_lineno") is None else d["end_lineno"]
    end_col = d["end_col_offset"] = \
        end_col if d.get("end_col_offset") is None else d["end_col_offset"]
    return line, col, end_line, end_col


def _position(d, loc, copy_all):
    """`_fill`, answered from `d` when the node has its whole position (the usual case)."""
    line, col, end_line, end_col = d.get("lineno"), d.get("col_offset"), \
        d.get("end_lineno"), d.get("end_col_offset")
    if line is not None and col is not None and end_line is not None and end_col is not None:
        return line, col, end_line, end_col
    return _fill(d, loc, copy_all)


def _a(v, loc):
    if isinstance(v, gast.AST):
        return _to_ast(v, loc)
    if isinstance(v, list):
        return [_a(x, loc) for x in v]
    return v


def _arg(node, loc):
    """A parameter (`gast.Name` in the `Param` context) as an `ast.arg`."""
    if node is None or type(node) is ast.arg:
        return node
    d = node.__dict__
    node.__class__ = ast.arg
    inner = _position(d, loc, False)
    d["arg"] = d.pop("id")
    del d["ctx"]
    d["annotation"] = _a(d["annotation"], inner)
    return node


# contexts and operators carry nothing (no fields, no positions): one shared instance
# each, as `ast.parse` shares them
_CONTEXTS = {getattr(gast, c.__name__): c() for c in (
    ast.Load, ast.Store, ast.Del, ast.And, ast.Or, ast.Add, ast.Sub, ast.Mult, ast.MatMult,
    ast.Div, ast.Mod, ast.Pow, ast.LShift, ast.RShift, ast.BitOr, ast.BitXor, ast.BitAnd,
    ast.FloorDiv, ast.Invert, ast.Not, ast.UAdd, ast.USub, ast.Eq, ast.NotEq, ast.Lt,
    ast.LtE, ast.Gt, ast.GtE, ast.Is, ast.IsNot, ast.In, ast.NotIn)}


def _to_ast(node, loc):
    t = type(node)
    d = node.__dict__
    if t is gast.Name:
        node.__class__ = ast.Name
        d["ctx"] = _CONTEXTS[type(d["ctx"])]
        del d["annotation"], d["type_comment"]
        _position(d, loc, False)
        return node
    ctx = _CONTEXTS.get(t)
    if ctx is not None:
        return ctx
    if t is gast.arguments:
        node.__class__ = ast.arguments
        for k in ("posonlyargs", "args", "kwonlyargs"):
            d[k] = [_arg(a, loc) for a in d[k]]
        d["vararg"], d["kwarg"] = _arg(d["vararg"], loc), _arg(d["kwarg"], loc)
        d["kw_defaults"], d["defaults"] = _a(d["kw_defaults"], loc), _a(d["defaults"], loc)
        return node
    plan = _AST_PLANS.get(t)
    if plan is None:
        if t not in _AST_PLANS:
            plan = _AST_PLANS[t] = _ast_plan(t)
        if plan is None:
            return None
    cls = plan[0]
    if cls is None:
        return node   # reached again through another parent: translated already
    _, fields, dropped, size, located, copy_all = plan
    node.__class__ = cls
    for k in dropped:
        d.pop(k, None)
    if located:
        # gast's generic translation copies every position present; its Assign and
        # definitions (and ExceptHandler with a name) go through `ast.copy_location`
        if t is gast.ExceptHandler and not d.get("name"):
            copy_all = True
        inner = _position(d, loc, copy_all)
    else:
        for a in _LOC:
            d.pop(a, None)
        inner = loc
    for k in fields:
        if k in d:
            v = d[k]
            if isinstance(v, gast.AST):
                d[k] = _to_ast(v, inner)
            elif type(v) is list:
                d[k] = [_to_ast(x, inner) if isinstance(x, gast.AST) else _a(x, inner)
                        for x in v]
    if t is gast.ExceptHandler and isinstance(d.get("name"), ast.Name):
        d["name"] = d["name"].id
    if len(d) > size:   # the analyses' notes (`ag_*`): not the tree's
        keep = set(cls._fields) | set(cls._attributes)
        for k in [k for k in d if k not in keep]:
            del d[k]
    return node


# the classes gast's translator rebuilds itself (then `ast.copy_location`); the
# definitions only before Python 3.12, whose `ast` has no `type_params`
_COPY_LOCATION = {gast.Assign, gast.ExceptHandler} | (
    set() if "type_params" in ast.FunctionDef._fields
    else {gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef})


# ---- children ----------------------------------------------------------------------

_FIELDS: dict = {}


def child_nodes(node) -> list:
    """The nodes directly below `node`, in field order (`gast.iter_child_nodes`)."""
    t = type(node)
    fields = _FIELDS.get(t)
    if fields is None:
        fields = _FIELDS[t] = t._fields
    d = node.__dict__
    out = []
    for f in fields:
        v = d.get(f)
        if type(v) is list:
            out.extend(x for x in v if isinstance(x, ast.AST))
        elif isinstance(v, ast.AST):
            out.append(v)
    return out


# ---- a NodeTransformer without per-node lookups ------------------------------------

_DEPRECATED_CONSTANT_VISITORS = ("visit_Num", "visit_Str", "visit_Bytes", "visit_NameConstant",
                                 "visit_Ellipsis")


# gast node classes without child nodes: no fields (expression contexts, operators)
# or only plain values (a constant's value and kind)
_LEAF_CLASSES = frozenset(
    c for c in vars(gast).values()
    if isinstance(c, type) and issubclass(c, gast.AST) and c is not gast.AST
    and (not c._fields or c is gast.Constant))


_NO_METHODS: dict = {}
_ABSENT = object()   # (a field the node does not have)
# the types of a field's plain values (and of `_ABSENT`): no node below; `generic_visit`
# tests a value's type against it instead of making two `isinstance` calls (issue 14)
_PLAIN = frozenset((str, type(None), int, float, complex, bytes, bool, type(...), object))


class Transformer(gast.NodeTransformer):
    """`gast.NodeTransformer` with the same rules, cheaper per node: the `visit_<Class>`
    method is looked up once per (transformer class, node class), on the first such
    node (so a method assigned to the class later is not seen), and `generic_visit`
    reads the fields from the node's dict instead of through `ast.iter_fields`."""

    def visit(self, node):
        method = type(self).__dict__.get("_visit_methods", _NO_METHODS).get(type(node))
        if method is None:
            method = self._cached_method(type(node))
        return method(self, node)

    @classmethod
    def _cached_method(cls, node_cls):
        """`_method_for`, looked up once per (transformer class, node class)."""
        methods = cls.__dict__.get("_visit_methods")
        if methods is None:
            methods = {}
            setattr(cls, "_visit_methods", methods)
        method = methods.get(node_cls)
        if method is None:
            method = methods[node_cls] = cls._method_for(node_cls)
        return method

    @classmethod
    def _method_for(cls, node_cls):
        method = getattr(cls, "visit_" + node_cls.__name__, None)
        if method is None:
            return cls.generic_visit
        if method is ast.NodeVisitor.visit_Constant and not any(
                hasattr(cls, m) for m in _DEPRECATED_CONSTANT_VISITORS):
            return cls.generic_visit   # what NodeVisitor.visit_Constant ends in
        return method

    @classmethod
    def _leaves(cls):
        """The node classes this transformer leaves as they are: the leaf classes
        (contexts, operators, constants: no child nodes) whose visitor is this generic
        one, which returns a leaf unchanged, so `generic_visit` does not call `visit`
        on them; and `Name` when it has no visitor of its own either (its only child
        is a parameter's annotation: a Name with one is still visited)."""
        skip = cls.__dict__.get("_skipped_leaves")
        if skip is None:
            skip = frozenset(t for t in _LEAF_CLASSES | {gast.Name}
                             if cls._cached_method(t) is Transformer.generic_visit)
            setattr(cls, "_skipped_leaves", skip)
        return skip

    def generic_visit(self, node):
        d = node.__dict__
        skip = self._leaves()
        for field in type(node)._fields:
            old = d.get(field, _ABSENT)
            t = type(old)
            if t in _PLAIN:   # (the test `isinstance` would make, by type: issue 14)
                continue
            if t is list:
                new_values = []
                for value in old:
                    tv = type(value)
                    if tv in skip and (tv is not gast.Name
                                       or getattr(value, "annotation", None) is None):
                        new_values.append(value)
                        continue
                    if isinstance(value, ast.AST):
                        value = self.visit(value)
                        if value is None:
                            continue
                        if not isinstance(value, ast.AST):
                            new_values.extend(value)
                            continue
                    new_values.append(value)
                old[:] = new_values
            elif t in skip and (t is not gast.Name or getattr(old, "annotation", None) is None):
                continue
            elif isinstance(old, ast.AST):
                new = self.visit(old)
                if new is None:
                    del d[field]
                else:
                    d[field] = new
        return node
