"""The registry of pytree node types behind `astjax.tree_util`: which classes are
containers (`register_pytree_node` and its class / dataclass / keyed / static forms; the
builtin containers; namedtuples implicitly), the leaves with a physical form
(`register_staging_leaf`: typed PRNG key arrays), and the path keys (`SequenceKey`,
`DictKey`, `GetAttrKey`, `FlattenedIndexKey`) a node's children are named by.
`astjax.tree_util` re-exports the public names."""
from __future__ import annotations

import collections
import dataclasses
import functools
from collections.abc import Sequence
from typing import Any, Callable, NamedTuple, TypeVar

from .errors import ArgumentValueError

_C = TypeVar("_C")  # a class given to and returned by a registering decorator


class _Node(NamedTuple):
    flatten: Callable
    unflatten: Callable
    flatten_with_keys: Callable | None = None


_registry: dict[type, _Node] = {}
_implicit: dict[type, _Node | None] = {}
# Leaves with a physical form (typed PRNG key arrays): users see one leaf, a staging
# boundary (jit, vmap, grad, control flow: `flatten_for_staging`) sees a node whose
# child is the array the IR carries, and rebuilds the leaf when it unflattens.
_boundary: dict[type, _Node] = {}


def register_pytree_node(nodetype: Any, flatten_func: Callable[..., Any],
                         unflatten_func: Callable[..., Any],
                         flatten_with_keys_func: Callable[..., Any] | None = None) -> None:
    """`flatten_func(x) -> (children, aux)`, `unflatten_func(aux, children) -> x`.
    Returns None, as JAX's does (the class decorators below return the class)."""
    if nodetype in _registry:
        raise ArgumentValueError(   # (JAX's ValueError)
            f"Duplicate custom PyTreeDef type registration for {nodetype}.",
            hint="register each class once (a module run twice registers its classes "
                 "again: guard it, or register at import)")
    _registry[nodetype] = _Node(flatten_func, unflatten_func, flatten_with_keys_func)
    _implicit.pop(nodetype, None)


def register_staging_leaf(leaftype, to_physical, from_physical):
    """Make instances of `leaftype` pytree leaves whose staged form is another array.

    Args:
        leaftype: the leaf class (astjax's typed key arrays).
        to_physical: `x -> (array, aux)`: what a transformation stages for `x`.
        from_physical: `(aux, array) -> x`: `x` again over a staged or computed array.

    `tree_flatten` and every public pytree function keep such values whole (as JAX
    treats key arrays); `flatten_for_staging` expands them, so `tree_unflatten` of
    its treedef over the staged arrays gives the leaves back.
    """
    def flatten(x):
        array, aux = to_physical(x)
        return (array,), aux
    _boundary[leaftype] = _Node(flatten, lambda aux, c: from_physical(aux, c[0]))


def register_pytree_with_keys(nodetype: Any, flatten_with_keys: Callable[..., Any],
                              unflatten_func: Callable[..., Any],
                              flatten_func: Callable[..., Any] | None = None) -> None:
    """Register `nodetype` as a pytree node whose children carry path keys.

    Args:
        nodetype: the class to register.
        flatten_with_keys: `x -> (((key, child), ...), aux)`.
        unflatten_func: `(aux, children) -> x`.
        flatten_func: optional faster `x -> (children, aux)`; derived when None.
    """
    def flat(x):
        kc, aux = flatten_with_keys(x)
        return [c for _, c in kc], aux
    register_pytree_node(nodetype, flatten_func or flat, unflatten_func, flatten_with_keys)


def register_static(cls: _C) -> _C:
    """Register `cls` as a pytree node with no children: its instances are part of the
    tree structure (compared by `==`), never leaves."""
    register_pytree_node(cls, lambda x: ((), x), lambda x, _: x)
    return cls


def register_pytree_node_class(cls: _C) -> _C:
    """Class decorator: register `cls` via its `tree_flatten` method and
    `tree_unflatten` classmethod; returns `cls`.
    """
    register_pytree_node(cls, lambda x: x.tree_flatten(), cls.tree_unflatten)
    return cls


def register_pytree_with_keys_class(cls: _C) -> _C:
    """Class decorator: register `cls` via its `tree_flatten_with_keys` method and
    `tree_unflatten` classmethod; returns `cls`.
    """
    register_pytree_with_keys(cls, lambda x: x.tree_flatten_with_keys(), cls.tree_unflatten)
    return cls


def register_dataclass(nodetype: Any = None, data_fields: Sequence[str] | None = None,
                       meta_fields: Sequence[str] | None = None,
                       drop_fields: Sequence[str] = ()) -> Any:
    """Register a dataclass: data fields are children, meta fields (default: those
    declared with `field(metadata=dict(static=True))`) are static aux data."""
    if nodetype is None:
        return functools.partial(register_dataclass, data_fields=data_fields,
                                 meta_fields=meta_fields, drop_fields=drop_fields)
    if data_fields is None or meta_fields is None:
        if not dataclasses.is_dataclass(nodetype):
            raise TypeError("register_dataclass: data_fields and meta_fields are required "
                            "for a class that is not a dataclass")
        fields = [f for f in dataclasses.fields(nodetype) if f.name not in drop_fields]
        meta = [f.name for f in fields if f.metadata.get("static", False)]
        data = [f.name for f in fields if not f.metadata.get("static", False)]
        data_fields = data if data_fields is None else list(data_fields)
        meta_fields = meta if meta_fields is None else list(meta_fields)
    data_fields, meta_fields = list(data_fields), list(meta_fields)

    def flatten(x):
        return [getattr(x, f) for f in data_fields], tuple(getattr(x, f) for f in meta_fields)

    def unflatten(meta, children):
        kw = dict(zip(data_fields, children))
        kw.update(zip(meta_fields, meta))
        try:
            return nodetype(**kw)
        except TypeError:  # fields with init=False
            obj = object.__new__(nodetype)
            for k, v in kw.items():
                object.__setattr__(obj, k, v)
            return obj

    def with_keys(x):
        return [(GetAttrKey(f), getattr(x, f)) for f in data_fields], \
            tuple(getattr(x, f) for f in meta_fields)
    register_pytree_node(nodetype, flatten, unflatten, with_keys)
    return nodetype


def _dict_flatten(d):
    keys = sorted(d)
    return [d[k] for k in keys], tuple(keys)


register_pytree_node(tuple, lambda t: (list(t), None), lambda _, c: tuple(c))
register_pytree_node(list, lambda t: (list(t), None), lambda _, c: list(c))
register_pytree_node(type(None), lambda t: ([], None), lambda _, c: None)
register_pytree_node(dict, _dict_flatten, lambda keys, c: dict(zip(keys, c)))
register_pytree_node(collections.OrderedDict, lambda d: (list(d.values()), tuple(d)),
                     lambda keys, c: collections.OrderedDict(zip(keys, c)))
register_pytree_node(
    collections.defaultdict,
    lambda d: ([d[k] for k in sorted(d)], (d.default_factory, tuple(sorted(d)))),
    lambda aux, c: collections.defaultdict(aux[0], zip(aux[1], c)))

def _node_for_type(t):
    node = _registry.get(t)
    if node is not None:
        return node
    if t not in _implicit:
        if issubclass(t, tuple) and hasattr(t, "_fields"):  # namedtuple
            _implicit[t] = _Node(lambda n: (list(n), None), lambda _, c, t=t: t(*c))
        else:   # (a list subclass with `pytree_as_list` is a list: the front end's StackedList)
            _implicit[t] = _registry[list] if getattr(t, "pytree_as_list", False) else None
    return _implicit[t]


def _node_for(x):
    return _node_for_type(type(x))


def _staging_node_for(x):
    return _boundary.get(type(x)) or _node_for_type(type(x))

# --------------------------------------------------------------------- path keys

@dataclasses.dataclass(frozen=True)
class SequenceKey:
    idx: int

    def __str__(self):
        return f"[{self.idx!r}]"


@dataclasses.dataclass(frozen=True)
class DictKey:
    key: Any

    def __str__(self):
        return f"[{self.key!r}]"


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    name: str

    def __str__(self):
        return f".{self.name}"


@dataclasses.dataclass(frozen=True)
class FlattenedIndexKey:
    key: int

    def __str__(self):
        return f"[<flat index {self.key}>]"
