"""Pytrees, as in `jax.tree_util`: tuples, lists, dicts, None, namedtuples,
registered classes and dataclasses are containers; everything else is a leaf."""
from __future__ import annotations

import collections
import dataclasses
import functools
from typing import Callable, NamedTuple


class _Node(NamedTuple):
    flatten: Callable
    unflatten: Callable


_registry: dict[type, _Node] = {}


def register_pytree_node(cls, flatten_func, unflatten_func):
    _registry[cls] = _Node(flatten_func, unflatten_func)
    return cls


def register_pytree_node_class(cls):
    register_pytree_node(cls, lambda x: x.tree_flatten(), cls.tree_unflatten)
    return cls


def register_dataclass(cls, data_fields=None, meta_fields=None):
    if data_fields is None:
        data_fields = [f.name for f in dataclasses.fields(cls)]
        meta_fields = []

    def flatten(x):
        return [getattr(x, f) for f in data_fields], tuple(getattr(x, f) for f in meta_fields)

    def unflatten(meta, children):
        return cls(**dict(zip(data_fields, children)), **dict(zip(meta_fields, meta)))
    register_pytree_node(cls, flatten, unflatten)
    return cls


register_pytree_node(tuple, lambda t: (list(t), None), lambda _, c: tuple(c))
register_pytree_node(list, lambda t: (list(t), None), lambda _, c: list(c))
register_pytree_node(type(None), lambda t: ([], None), lambda _, c: None)
register_pytree_node(dict, lambda d: ([d[k] for k in sorted(d)], tuple(sorted(d))),
                     lambda keys, c: dict(zip(keys, c)))
register_pytree_node(collections.OrderedDict, lambda d: (list(d.values()), tuple(d)),
                     lambda keys, c: collections.OrderedDict(zip(keys, c)))


_implicit: dict[type, _Node | None] = {}


def _node_for_type(t):
    node = _registry.get(t)
    if node is not None:
        return node
    if t not in _implicit:
        if issubclass(t, tuple) and hasattr(t, "_fields"):  # namedtuple
            _implicit[t] = _Node(lambda n: (list(n), None), lambda _, c, t=t: t(*c))
        elif t is collections.defaultdict:
            _implicit[t] = _Node(
                lambda d: ([d[k] for k in sorted(d)], (d.default_factory, tuple(sorted(d)))),
                lambda aux, c: collections.defaultdict(aux[0], zip(aux[1], c)))
        else:
            _implicit[t] = None
    return _implicit[t]


def _node_for(x):
    return _node_for_type(type(x))


class PyTreeDef:
    __slots__ = ("node_type", "aux", "children", "num_leaves", "_hash")

    def __init__(self, node_type, aux, children):
        self.node_type, self.aux, self.children = node_type, aux, tuple(children)
        self.num_leaves = 1 if node_type is None else sum(c.num_leaves for c in children)
        self._hash = None

    def unflatten(self, leaves):
        return tree_unflatten(self, leaves)

    @property
    def num_nodes(self):
        return 1 + sum(c.num_nodes for c in self.children)

    def _key(self):
        return (self.node_type, _aux_key(self.aux), tuple(c._key() for c in self.children))

    def __eq__(self, other):
        return isinstance(other, PyTreeDef) and self._key() == other._key()

    def __hash__(self):
        if self._hash is None:
            self._hash = hash(self._key())
        return self._hash

    def __repr__(self):
        if self.node_type is None:
            return "*"
        inner = ", ".join(map(repr, self.children))
        if self.node_type is tuple:
            return f"({inner}{',' if len(self.children) == 1 else ''})"
        if self.node_type is list:
            return f"[{inner}]"
        if self.node_type is dict:
            return "{" + ", ".join(f"{k!r}: {c!r}" for k, c in zip(self.aux, self.children)) + "}"
        if self.node_type is type(None):
            return "None"
        return f"{getattr(self.node_type, '__name__', self.node_type)}({inner})"


def _aux_key(aux):
    try:
        hash(aux)
        return aux
    except TypeError:
        return repr(aux)


_LEAF = PyTreeDef(None, None, ())


def tree_flatten(tree, is_leaf=None):
    leaves: list = []
    treedef = _flatten(tree, is_leaf, leaves)
    return leaves, treedef


def _flatten(x, is_leaf, leaves):
    if is_leaf is not None and is_leaf(x):
        leaves.append(x)
        return _LEAF
    node = _node_for(x)
    if node is None:
        leaves.append(x)
        return _LEAF
    children, aux = node.flatten(x)
    return PyTreeDef(type(x), aux, [_flatten(c, is_leaf, leaves) for c in children])


def tree_unflatten(treedef: PyTreeDef, leaves):
    it = iter(leaves)
    out = _unflatten(treedef, it)
    return out


def _unflatten(td, it):
    if td.node_type is None:
        return next(it)
    children = [_unflatten(c, it) for c in td.children]
    return _node_for_type(td.node_type).unflatten(td.aux, children)


def tree_leaves(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[1]


def tree_map(f, tree, *rest, is_leaf=None):
    leaves, treedef = tree_flatten(tree, is_leaf)
    others = [_flatten_up_to(treedef, r) for r in rest]
    return tree_unflatten(treedef, [f(*xs) for xs in zip(leaves, *others)])


def _flatten_up_to(treedef, tree):
    out: list = []

    def go(td, x):
        if td.node_type is None:
            out.append(x)
            return
        node = _node_for(x)
        if node is None or (type(x) is not td.node_type and not (
                td.node_type in (list, tuple) and type(x) in (list, tuple))):
            raise ValueError(f"tree structures differ: expected {td}, got {type(x).__name__}")
        children, _ = node.flatten(x)
        if len(children) != len(td.children):
            raise ValueError(f"tree structures differ: expected {td}, got {x!r:.80}")
        for c, y in zip(td.children, children):
            go(c, y)
    go(treedef, tree)
    return out


def tree_all(tree):
    return all(tree_leaves(tree))


def tree_reduce(f, tree, *initial, is_leaf=None):
    return functools.reduce(f, tree_leaves(tree, is_leaf), *initial)


def treedef_children(td):
    return list(td.children)


def all_leaves(iterable):
    return all(_node_for(x) is None for x in iterable)


def Partial(func, *args, **kw):  # noqa: N802  (JAX's name)
    return functools.partial(func, *args, **kw)


tree = type("tree", (), {"map": staticmethod(tree_map), "leaves": staticmethod(tree_leaves),
                         "structure": staticmethod(tree_structure),
                         "flatten": staticmethod(tree_flatten),
                         "unflatten": staticmethod(tree_unflatten),
                         "reduce": staticmethod(tree_reduce), "all": staticmethod(tree_all)})
