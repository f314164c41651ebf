"""`astjax.tree`: JAX's short names for the pytree utilities (`astjax.tree.map` is
`astjax.tree_util.tree_map`, and so on)."""
from .tree_util import (tree_all as all, tree_flatten as flatten, tree_leaves as leaves,  # noqa: F401
                        tree_map as map, tree_reduce as reduce, tree_structure as structure,
                        tree_transpose as transpose, tree_unflatten as unflatten,
                        tree_flatten_with_path as flatten_with_path,
                        tree_map_with_path as map_with_path, tree_leaves_with_path as
                        leaves_with_path, tree_broadcast as broadcast,
                        tree_reduce_associative as reduce_associative)
import dataclasses as _dataclasses

__all__ = ["all", "flatten", "leaves", "map", "reduce", "structure", "transpose", "unflatten",
           "flatten_with_path", "map_with_path", "leaves_with_path", "broadcast",
           "reduce_associative", "static"]


def static(**kwargs):
    """A `dataclasses.field` marked `static=True` in its metadata: a field that
    `tree_util.register_dataclass` treats as static (aux data, not a leaf)."""
    metadata = dict(kwargs.pop("metadata", None) or {})
    return _dataclasses.field(metadata={"static": True, **metadata}, **kwargs)
