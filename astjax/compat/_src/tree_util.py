"""`jax._src.tree_util`: the public `jax.tree_util` names plus `_registry`, the
mapping from pytree node types (builtins included) to their flatten rules, which
libraries consult to ask "is this type a pytree node" (`type(x) in _registry`), and
`prefix_errors`, the structural differences of a tree that should be a prefix of
another (flax's tests read it)."""
from __future__ import annotations

from typing import Any, Callable

from astjax.tree_util import *  # noqa: F401,F403
from astjax.pytree_registry import _registry  # noqa: F401
from astjax.tree_util import (flatten_one_level_with_keys, keystr, tree_structure,
                              treedef_is_leaf)


def prefix_errors(prefix_tree: Any, full_tree: Any,
                  is_leaf: Callable[[Any], bool] | None = None,
                  ) -> list[Callable[[str], ValueError]]:
    """Where `prefix_tree` fails to be a prefix of `full_tree`: one function per
    difference, taking the prefix's name (`'in_axes'`) and returning the ValueError
    that names the key path (`in_axes.y`). A subtree differing at its root is not
    searched further; an empty list means `prefix_tree` is a prefix."""
    return list(_prefix_differences((), prefix_tree, full_tree, is_leaf))


def _structure_error(what, path, detail):
    return lambda name: ValueError(
        f"pytree structure error: {what} at key path\n    {name}{keystr(path)}\n{detail}")


def _prefix_differences(path, prefix, full, is_leaf):
    if treedef_is_leaf(tree_structure(prefix, is_leaf=is_leaf)):
        return  # a leaf stands for any subtree
    if type(prefix) is not type(full):
        yield _structure_error("different types", path,
                               f"The prefix has a {type(prefix)} there, the full tree a "
                               f"{type(full)}.")
        return
    prefix_kids, prefix_meta = flatten_one_level_with_keys(prefix)
    full_kids, full_meta = flatten_one_level_with_keys(full)
    if len(prefix_kids) != len(full_kids):
        keys = lambda kids: " ".join(keystr((k,)) for k, _ in kids)  # noqa: E731
        yield _structure_error("different numbers of children", path,
                               f"The prefix's {type(prefix).__name__} has "
                               f"{len(prefix_kids)} ({keys(prefix_kids)}), the full "
                               f"tree's {len(full_kids)} ({keys(full_kids)}).")
        return
    if prefix_meta != full_meta:
        yield _structure_error("different node data", path,
                               f"The prefix's {type(prefix).__name__} has {prefix_meta!r}, "
                               f"the full tree's {full_meta!r}.")
        return
    for (key, p), (_, f) in zip(prefix_kids, full_kids):
        yield from _prefix_differences((*path, key), p, f, is_leaf)
