"""Pytrees, as in `jax.tree_util`: tuples, lists, dicts (sorted keys), OrderedDict and
defaultdict, None (a node with no children), namedtuples, and registered classes
(`register_pytree_node`, `register_pytree_node_class`, `register_dataclass`) are
containers; everything else is a leaf. A typed PRNG key array is a leaf too, one with
a physical form (`register_staging_leaf`): `flatten_for_staging`, which jit, the
transformations and control flow use at their boundary, flattens it to the key data
the IR carries.

Mapping several trees requires the others to have the first tree's structure (or
to have it as a prefix, leaf positions then holding whole subtrees); a mismatch
raises ValueError naming both structures, as JAX does. `astjax.tree` holds the
short names (`astjax.tree.map`, ...)."""
from __future__ import annotations

import collections
import functools
from collections.abc import Iterable, Sequence
from typing import Any, Callable, NamedTuple

from .errors import (ArgumentTypeError as _ArgumentTypeError, ArgumentValueError,
                     JAXAttributeError as _JAXAttributeError, StructureError as _StructureError)
from .pytree_registry import (  # noqa: F401  (re-exported: the public registration API)
    DictKey, FlattenedIndexKey, GetAttrKey, SequenceKey, _boundary, _node_for,
    _node_for_type, _registry, _staging_node_for, register_dataclass, register_pytree_node,
    register_pytree_node_class, register_pytree_with_keys, register_pytree_with_keys_class,
    register_static, register_staging_leaf)

_LIST = _registry[list]


class PyTreeDef:
    """The structure of a pytree: `node_type` (None for a leaf), `aux` data and
    child treedefs."""
    __slots__ = ("node_type", "aux", "children", "num_leaves", "_hash")

    def __init__(self, node_type, aux, children):
        self.node_type, self.aux, self.children = node_type, aux, tuple(children)
        self.num_leaves = 1 if node_type is None else sum(c.num_leaves for c in children)
        self._hash = None

    def unflatten(self, leaves):
        return tree_unflatten(self, leaves)

    def flatten_up_to(self, tree):
        return _flatten_up_to(self, tree, strict=True)

    def compose(self, inner):
        """This structure with each of its leaves replaced by `inner` (JAX's
        `PyTreeDef.compose`: `outer.compose(inner).unflatten(xs)` nests inner trees)."""
        if self.node_type is None:
            return inner
        return PyTreeDef(self.node_type, self.aux, [c.compose(inner) for c in self.children])

    @property
    def num_nodes(self):
        return 1 + sum(c.num_nodes for c in self.children)

    def node_data(self):
        return None if self.node_type is None else (self.node_type, self.aux)

    def _key(self):
        return (self.node_type, _aux_key(self.aux), tuple(c._key() for c in self.children))

    def __eq__(self, other):
        return isinstance(other, PyTreeDef) and self._key() == other._key()

    def __hash__(self):
        if self._hash is None:
            self._hash = hash(self._key())
        return self._hash

    def _inner(self):
        if self.node_type is None:
            return "*"
        inner = ", ".join(c._inner() for c in self.children)
        nt = self.node_type
        if nt is tuple:
            return f"({inner}{',' if len(self.children) == 1 else ''})"
        if nt is list:
            return f"[{inner}]"
        if nt is dict:
            return "{" + ", ".join(f"{k!r}: {c._inner()}" for k, c in zip(self.aux, self.children)) + "}"
        if nt is type(None):
            return "None"
        name = getattr(nt, "__name__", str(nt))
        if issubclass(nt, tuple) and hasattr(nt, "_fields"):
            return f"CustomNode(namedtuple[{name}], [{inner}])"
        return f"CustomNode({name}[{self.aux!r}], [{inner}])"

    def __repr__(self):
        return f"PyTreeDef({self._inner()})"


def _aux_key(aux):
    try:
        hash(aux)
        return aux
    except TypeError:
        return repr(aux)


_LEAF = PyTreeDef(None, None, ())


def tree_flatten(tree: Any,
                 is_leaf: Callable[[Any], bool] | None = None) -> tuple[list[Any], PyTreeDef]:
    """(leaves, treedef); `None` is an empty subtree, not a leaf."""
    leaves: list = []
    try:
        treedef = _flatten(tree, is_leaf, leaves)
    except TypeError:
        _check_is_leaf(is_leaf)
        raise
    return leaves, treedef


def _check_fn(fn, what):
    """A located TypeError (JAX's) when `fn`, the argument `what`, is not callable:
    called where calling it failed, so the fast paths check nothing."""
    if not callable(fn):
        raise _ArgumentTypeError(f"{what} must be callable, got {fn!r:.60}: "
                                f"'{type(fn).__name__}' object is not callable",
                                hint="pass the function itself (not its result or its name)")


def _check_is_leaf(is_leaf):
    if is_leaf is not None:
        _check_fn(is_leaf, "is_leaf")


def flatten_for_staging(tree):
    """`tree_flatten` at a staging boundary (the arguments and results of a function
    that `jit`, a transformation or a control-flow primitive stages): a leaf with a
    physical form (`register_staging_leaf`: typed key arrays) becomes a node over the
    array the IR carries, so the staged function sees the leaf again when its
    arguments are unflattened from Tracers, and results are rebuilt likewise."""
    leaves: list = []
    treedef = _flatten(tree, None, leaves, _staging_node_for)
    return leaves, treedef


def staging_leaves(tree) -> list:
    """The leaves of `flatten_for_staging(tree)`: the arrays a transformation stages
    for `tree` (a typed key array's data, not the key array)."""
    return flatten_for_staging(tree)[0]


def is_staging_leaf_type(t) -> bool:
    """Whether `t` was registered with `register_staging_leaf`."""
    return t in _boundary


def _flatten(x, is_leaf, leaves, node_for=_node_for):
    if is_leaf is not None and is_leaf(x):
        leaves.append(x)
        return _LEAF
    node = node_for(x)
    if node is None:
        leaves.append(x)
        return _LEAF
    children, aux = node.flatten(x)
    return PyTreeDef(list if node is _LIST else type(x), aux,
                     [_flatten(c, is_leaf, leaves, node_for) for c in children])


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:
    """Rebuild a pytree of structure `treedef` from a flat sequence of leaves.

    Args:
        treedef: a `PyTreeDef`, e.g. from `tree_flatten`.
        leaves: exactly `treedef.num_leaves` values, in flattening order.

    Returns:
        The pytree.

    Example:
        >>> import astjax
        >>> leaves, treedef = astjax.tree_util.tree_flatten({'a': [1, 2], 'b': 3})
        >>> astjax.tree_util.tree_unflatten(treedef, [10, 20, 30])
        {'a': [10, 20], 'b': 30}
    """
    leaves = list(leaves)
    try:
        n = treedef.num_leaves
    except AttributeError:
        if hasattr(treedef, "unflatten"):   # another PyTreeDef (JAX calls its method)
            return treedef.unflatten(leaves)
        raise _JAXAttributeError(f"'{type(treedef).__name__}' object has no attribute "
                                f"'unflatten'", hint="tree_unflatten takes the treedef first: "
                                "tree_unflatten(treedef, leaves)") from None
    if len(leaves) != n:
        raise ArgumentValueError(
            f"Too {'few' if len(leaves) < treedef.num_leaves else 'many'} leaves for "
            f"PyTreeDef; expected {treedef.num_leaves}, got {len(leaves)}.",
            hint="pass exactly one leaf per leaf of the structure (treedef.num_leaves)")
    return _unflatten(treedef, iter(leaves))


def _unflatten(td, it):
    if td.node_type is None:
        return next(it)
    children = [_unflatten(c, it) for c in td.children]
    node = _boundary.get(td.node_type) or _node_for_type(td.node_type)
    return node.unflatten(td.aux, children)


def tree_leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list[Any]:
    """The leaves of `tree`, in flattening order (dict keys sorted).

    Args:
        tree: a pytree.
        is_leaf: optional predicate; subtrees for which it is true count as leaves.

    Returns:
        A list of leaves.

    Example:
        >>> import astjax
        >>> astjax.tree_util.tree_leaves({'a': [1, 2], 'b': 3})
        [1, 2, 3]
    """
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeDef:
    """The `PyTreeDef` of `tree` (its structure without the leaves).

    Example:
        >>> import astjax
        >>> astjax.tree_util.tree_structure({'a': [1, 2], 'b': 3})
        PyTreeDef({'a': [*, *], 'b': *})
    """
    return tree_flatten(tree, is_leaf)[1]


def tree_map(f: Callable[..., Any], tree: Any, *rest: Any,
             is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """f applied leafwise; the other trees must have `tree`'s structure (or have it
    as a prefix: then f receives their subtrees).

    Args:
        f: called as `f(leaf, *corresponding_leaves_of_rest)`.
        tree: the pytree whose structure the result has.
        *rest: further pytrees matching `tree`.
        is_leaf: optional predicate marking extra subtrees as leaves.

    Returns:
        A pytree of `tree`'s structure holding f's results.

    Example:
        >>> import astjax, astjax.numpy as jnp
        >>> astjax.tree_util.tree_map(jnp.add, (1, 2), (10, 20))
        (Array(11, dtype=int32, weak_type=True), Array(22, dtype=int32, weak_type=True))
    """
    leaves, treedef = tree_flatten(tree, is_leaf)
    others = [_flatten_up_to(treedef, r, strict=True) for r in rest]
    try:
        return tree_unflatten(treedef, [f(*xs) for xs in zip(leaves, *others)])
    except TypeError:
        _check_fn(f, "tree_map: f")
        raise


def _mismatch(td, x, why):
    raise ArgumentValueError(f"Tree structures differ: {why}; expected a tree of structure "
                             f"{td!r}, got {x!r:.200}.",
                             hint="every tree must have the first tree's structure (or have "
                                  "it as a prefix)")


def _flatten_up_to(treedef, tree, strict=False):
    """The subtrees of `tree` at `treedef`'s leaves. With strict=False a list may
    stand for a tuple (used for in_axes-style specs)."""
    out: list = []

    def go(td, x):
        if td.node_type is None:
            out.append(x)
            return
        nt = td.node_type
        if type(x) is not nt:
            if not (not strict and nt in (list, tuple) and type(x) in (list, tuple)):
                _mismatch(treedef, tree, f"expected {getattr(nt, '__name__', nt)}, got "
                          f"{type(x).__name__} ({x!r:.60})")
        node = _boundary.get(nt) or _node_for(x)
        children, aux = node.flatten(x)
        if len(children) != len(td.children):
            _mismatch(treedef, tree, f"{type(x).__name__} arity mismatch: "
                      f"{len(children)} != {len(td.children)}")
        if nt in (dict, collections.OrderedDict, collections.defaultdict) and \
                _aux_key(aux) != _aux_key(td.aux):
            keys = aux[1] if nt is collections.defaultdict else aux
            want = td.aux[1] if nt is collections.defaultdict else td.aux
            _mismatch(treedef, tree, f"dict key mismatch; expected keys {list(want)}, "
                      f"got {list(keys)}")
        elif strict and nt not in (tuple, list, type(None), dict, collections.OrderedDict,
                                   collections.defaultdict) and \
                _aux_key(aux) != _aux_key(td.aux):
            _mismatch(treedef, tree, f"{nt.__name__} node data mismatch")
        for c, y in zip(td.children, children):
            go(c, y)
    go(treedef, tree)
    del go   # (the recursive closure's own cell: no cycle keeps `tree` alive)
    return out


def tree_all(tree: Any, *, is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """True if every leaf of `tree` is truthy."""
    return all(tree_leaves(tree, is_leaf))


_NO_INIT = object()


def tree_reduce(function: Callable[..., Any], tree: Any, initializer: Any = _NO_INIT,
                is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """Fold `function` over the leaves of `tree`, left to right.

    Args:
        function: a binary function `(accumulated, leaf) -> accumulated`.
        tree: a pytree.
        initializer: optional start value (default: the first leaf).
        is_leaf: optional predicate; subtrees for which it is true count as leaves.

    Returns:
        The reduced value.

    Example:
        >>> import astjax, operator
        >>> astjax.tree_util.tree_reduce(operator.add, {'a': [1, 2], 'b': 3})
        6
    """
    leaves = tree_leaves(tree, is_leaf)
    if initializer is _NO_INIT and not leaves:
        raise _ArgumentTypeError("reduce() of empty iterable with no initial value",
                                 hint="pass initializer=, or reduce a tree with leaves")
    try:
        if initializer is _NO_INIT:
            return functools.reduce(function, leaves)
        return functools.reduce(function, leaves, initializer)
    except TypeError:
        _check_fn(function, "tree_reduce: function")
        raise


def tree_reduce_associative(operation: Callable[[Any, Any], Any], tree: Any, *,
                            identity: Any = _NO_INIT,
                            is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """Reduce the leaves of `tree` with an associative `operation`, pairing them as a
    balanced tree (left half, then right half): `[1, 2, 3, 4, 5]` gives
    `op(op(1, 2), op(3, op(4, 5)))`. An empty tree returns `identity` (a TypeError
    without one)."""
    def halve(xs):
        mid = len(xs) // 2
        return xs[0] if len(xs) == 1 else operation(halve(xs[:mid]), halve(xs[mid:]))
    leaves = tree_leaves(tree, is_leaf)
    if not leaves and identity is _NO_INIT:
        raise TypeError("Must specify identity for parallel reduction of empty sequence.")
    return halve(leaves) if leaves else identity


def tree_broadcast(prefix_tree: Any, full_tree: Any,
                   is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """`full_tree`'s structure with each leaf of `prefix_tree` repeated over the
    leaves of the subtree of `full_tree` at its position: `((1, 2), (0, {'a': 0,
    'b': 0}))` gives `(1, {'a': 2, 'b': 2})`. A `prefix_tree` that is not a prefix is a
    ValueError."""
    out: list = []
    tree_map(lambda x, sub: out.extend([x] * tree_structure(sub).num_leaves),
             prefix_tree, full_tree, is_leaf=is_leaf)
    return tree_unflatten(tree_structure(full_tree), out)


def tree_transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef,
                   pytree_to_transpose: Any) -> Any:
    """Swap the outer and inner levels of a pytree of pytrees.

    Args:
        outer_treedef: structure of the outer level.
        inner_treedef: structure of each inner tree (inferred when None).
        pytree_to_transpose: a tree of structure outer, each leaf-position holding
            a tree of structure inner.

    Returns:
        A tree of structure inner whose leaves are trees of structure outer.

    Example:
        >>> import astjax
        >>> tu = astjax.tree_util
        >>> tu.tree_transpose(tu.tree_structure([0, 0]), tu.tree_structure((0, 0)),
        ...                   [(1, 2), (3, 4)])
        ([1, 3], [2, 4])
    """
    flat, treedef = tree_flatten(pytree_to_transpose)
    try:
        if inner_treedef is None:
            inner_treedef = tree_structure(outer_treedef.flatten_up_to(pytree_to_transpose)[0])
        n_in, n_out = inner_treedef.num_leaves, outer_treedef.num_leaves
    except AttributeError as e:   # (JAX's AttributeError, located)
        raise _JAXAttributeError(str(e), hint="pass the structures as PyTreeDefs, e.g. "
                                "tree_structure([0, 0]), not example trees") from None
    if treedef.num_leaves != n_in * n_out:
        expected = outer_treedef.compose(inner_treedef)
        raise _StructureError(f"Mismatch\n{treedef}\n != \n{expected}",
                              hint=f"the tree must be the outer structure with a tree of "
                                   f"{n_in} leaves at each of its {n_out} leaves")
    lol = [flat[i * n_in:(i + 1) * n_in] for i in range(n_out)]
    transposed = [list(col) for col in zip(*lol)]
    subtrees = [tree_unflatten(outer_treedef, col) for col in transposed]
    return tree_unflatten(inner_treedef, subtrees)


def treedef_children(td: PyTreeDef) -> list[PyTreeDef]:
    """The `PyTreeDef`s of the children of the root node of `td`, as a list."""
    return list(td.children)


def treedef_is_leaf(td: PyTreeDef) -> bool:
    """True if `td` is the structure of a single leaf."""
    return td.node_type is None


def treedef_tuple(treedefs: Iterable[PyTreeDef]) -> PyTreeDef:
    """A `PyTreeDef` for a tuple whose children have the given structures."""
    treedefs = list(treedefs)
    return PyTreeDef(tuple, None, treedefs)


def all_leaves(iterable: Iterable[Any], is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """True if every element of `iterable` is a leaf (not a pytree node).

    Args:
        iterable: the values to check.
        is_leaf: optional predicate; subtrees for which it is true count as leaves.
    """
    if is_leaf is None:
        return all(_node_for(x) is None for x in iterable)
    return all(is_leaf(x) or _node_for(x) is None for x in iterable)


def build_tree(treedef: PyTreeDef, xs: Any) -> Any:
    """Build `treedef` with `xs` as its children (nested), like jax.tree_util.build_tree."""
    def go(td, x):
        if td.node_type is None:
            return x
        node = _boundary.get(td.node_type) or _node_for_type(td.node_type)
        return node.unflatten(td.aux, [go(c, y) for c, y in zip(td.children, x)])
    return go(treedef, xs)

# --------------------------------------------------------------------- key paths

def _child_keys(x, node, children, aux):
    t = type(x)
    if node.flatten_with_keys is not None:
        return [k for k, _ in node.flatten_with_keys(x)[0]]
    if t in (tuple, list):
        return [SequenceKey(i) for i in range(len(children))]
    if t in (dict, collections.OrderedDict):
        return [DictKey(k) for k in aux]
    if t is collections.defaultdict:
        return [DictKey(k) for k in aux[1]]
    if issubclass(t, tuple) and hasattr(t, "_fields"):
        return [GetAttrKey(f) for f in t._fields]
    return [FlattenedIndexKey(i) for i in range(len(children))]


def tree_flatten_with_path(
        tree: Any, is_leaf: Callable[..., bool] | None = None,
        is_leaf_takes_path: bool = False,
) -> tuple[list[tuple[Any, Any]], PyTreeDef]:
    """Like `tree_flatten`, but each leaf comes with its key path.

    Args:
        tree: a pytree.
        is_leaf: optional predicate; subtrees for which it is true count as leaves.
        is_leaf_takes_path: call `is_leaf(path, subtree)` instead (JAX's option).

    Returns:
        `([(path, leaf), ...], treedef)`; a path is a tuple of keys such as
        `DictKey`, `SequenceKey`, `GetAttrKey`.

    Example:
        >>> import astjax
        >>> astjax.tree_util.tree_flatten_with_path({'a': 1})
        ([((DictKey(key='a'),), 1)], PyTreeDef({'a': *}))
    """
    out: list = []

    def go(x, path):   # (as `_flatten`, with the paths: the same decisions, once each)
        if is_leaf is not None and (is_leaf(path, x) if is_leaf_takes_path else is_leaf(x)):
            out.append((path, x))
            return _LEAF
        node = _node_for(x)
        if node is None:
            out.append((path, x))
            return _LEAF
        children, aux = node.flatten(x)
        return PyTreeDef(list if node is _LIST else type(x), aux,
                         [go(c, path + (k,)) for k, c in zip(_child_keys(x, node, children,
                                                                         aux), children)])
    try:
        treedef = go(tree, ())
    except TypeError:
        _check_is_leaf(is_leaf)
        raise
    finally:
        del go   # (the recursive closure's own cell: no cycle keeps the leaves alive)
    return out, treedef


def treedef_paths(treedef: PyTreeDef) -> list[tuple[Any, ...]]:
    """The key path of each leaf of `treedef`, in flattening order (what
    `tree_flatten_with_path` gives for a tree of this structure). A staging leaf's
    physical array has its leaf's path; a custom node's keys come from its
    `flatten_with_keys` applied to the node rebuilt over placeholders, else they are
    `FlattenedIndexKey`s."""
    out: list = []

    def go(td, path):
        if td.node_type is None:
            out.append(path)
        elif td.node_type in _boundary:
            for c in td.children:
                go(c, path)
        else:
            for k, c in zip(_treedef_child_keys(td), td.children):
                go(c, path + (k,))
    go(treedef, ())
    return out


def _treedef_child_keys(td):
    nt, n = td.node_type, len(td.children)
    node = _node_for_type(nt)
    if node is not None and node.flatten_with_keys is not None:
        try:
            x = node.unflatten(td.aux, [object() for _ in range(n)])
            return [k for k, _ in node.flatten_with_keys(x)[0]]
        except Exception:  # noqa: BLE001 -- a node that rejects placeholders
            return [FlattenedIndexKey(i) for i in range(n)]
    if nt in (tuple, list):
        return [SequenceKey(i) for i in range(n)]
    if nt in (dict, collections.OrderedDict):
        return [DictKey(k) for k in td.aux]
    if nt is collections.defaultdict:
        return [DictKey(k) for k in td.aux[1]]
    if issubclass(nt, tuple) and hasattr(nt, "_fields"):
        return [GetAttrKey(f) for f in nt._fields]
    return [FlattenedIndexKey(i) for i in range(n)]


def tree_leaves_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                          is_leaf_takes_path: bool = False) -> list[tuple[Any, Any]]:
    """The `(path, leaf)` pairs of `tree` (the first half of `tree_flatten_with_path`)."""
    return tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)[0]


def tree_map_with_path(f: Callable[..., Any], tree: Any, *rest: Any,
                       is_leaf: Callable[..., bool] | None = None,
                       is_leaf_takes_path: bool = False) -> Any:
    """Like `tree_map`, but `f` also receives each leaf's key path first.

    Args:
        f: called as `f(path, leaf, *corresponding_leaves_of_rest)`.
        tree: the pytree whose structure the result has.
        *rest: further pytrees matching `tree`.
        is_leaf: optional predicate; subtrees for which it is true count as leaves.
        is_leaf_takes_path: call `is_leaf(path, subtree)` instead (JAX's option).

    Returns:
        A pytree of `tree`'s structure holding f's results.
    """
    pairs, treedef = tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)
    others = [_flatten_up_to(treedef, r, strict=True) for r in rest]
    try:
        return tree_unflatten(treedef, [f(p, x, *xs) for (p, x), *xs in zip(pairs, *others)])
    except TypeError:
        _check_fn(f, "tree_map_with_path: f")
        raise


def keystr(keys: Sequence[Any], *, simple: bool = False, separator: str = '') -> str:
    """Render a key path as a string, e.g. `['a'][0]`.

    Args:
        keys: a tuple of path keys.
        simple: if true, join the bare key values with `separator` instead.
        separator: used only when `simple` is true.

    Example:
        >>> import astjax
        >>> path, leaf = astjax.tree_util.tree_leaves_with_path({'a': [5]})[0]
        >>> astjax.tree_util.keystr(path)
        "['a'][0]"
    """
    if simple:
        return separator.join(str(getattr(k, "idx", getattr(k, "key", getattr(k, "name", k))))
                              for k in keys)
    return "".join(str(k) for k in keys)

# ----------------------------------------------------------------------- Partial


class Partial(functools.partial):
    """A functools.partial that is a pytree: the bound arguments are its leaves and
    the function is static, so it can be passed through `jit`."""

    def __new__(klass, func, *args, **kw):
        if not callable(func):   # (functools' TypeError, located)
            raise _ArgumentTypeError(f"the first argument must be callable, got {func!r:.60}",
                                    hint="Partial(f, *args): pass the function first")
        if isinstance(func, functools.partial):
            # (functools would merge its arguments into ours, making them leaves: a
            # function given as a partial stays static, arguments and all, as JAX's)
            func = _WholePartial(func)
        return super().__new__(klass, func, *args, **kw)


class _WholePartial(NamedTuple):
    """A `functools.partial` that is a Partial's function, kept whole."""
    partial: functools.partial

    def __call__(self, *args, **kw):
        return self.partial(*args, **kw)


register_pytree_node(Partial, lambda p: ((p.args, p.keywords), p.func),
                     lambda func, xs: Partial(func, *xs[0], **xs[1]))


def is_tree_node(typ: type) -> bool:
    """Whether `typ` is a pytree node type: built in, registered, or a namedtuple."""
    return _node_for_type(typ) is not None


def flatten_one_level(tree: Any) -> tuple[Iterable[Any], Any]:
    """(children, node data) of the node `tree`; a ValueError if it is a leaf."""
    node = _node_for(tree)
    if node is None:
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    children, aux = node.flatten(tree)
    if isinstance(tree, tuple) and hasattr(type(tree), "_fields"):
        aux = type(tree)  # a namedtuple's node data is its class
    elif type(tree) in (dict, tuple, type(None)):
        children = tuple(children)  # JAX's children of these three are a tuple
    return children, aux


def flatten_one_level_with_keys(tree: Any) -> tuple[Iterable[tuple[Any, Any]], Any]:
    """([(key, child), ...], node data) of the node `tree`; a ValueError if it is a
    leaf."""
    children, aux = flatten_one_level(tree)
    return list(zip(_child_keys(tree, _node_for(tree), children, aux), children)), aux


class PyTreeRegistry:
    """The registry of pytree node types (`default_registry`), with JAX's methods."""
    flatten = staticmethod(lambda tree, leaf_predicate=None: tree_flatten(tree, leaf_predicate))
    flatten_with_path = staticmethod(
        lambda tree, leaf_predicate=None: tree_flatten_with_path(tree, leaf_predicate))
    flatten_one_level = staticmethod(flatten_one_level)
    flatten_one_level_with_keys = staticmethod(flatten_one_level_with_keys)
    is_node = staticmethod(is_tree_node)
    register_node = staticmethod(register_pytree_node)
    register_dataclass_node = staticmethod(
        lambda type, data_fields, meta_fields: register_dataclass(
            type, list(data_fields), list(meta_fields)))


default_registry = PyTreeRegistry()


KeyEntry = Any  # one step of a key path: SequenceKey, DictKey, GetAttrKey, ...
KeyPath = tuple  # a key path: a tuple of key entries
