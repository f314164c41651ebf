"""`astjax.tree`: JAX's short names for the pytree utilities (`astjax.tree.map` is
`astjax.tree_util.tree_map`, and so on)."""
from .tree_util import (tree_all as all, tree_flatten as flatten, tree_leaves as leaves,  # noqa: F401
                        tree_map as map, tree_reduce as reduce, tree_structure as structure,
                        tree_transpose as transpose, tree_unflatten as unflatten,
                        tree_flatten_with_path as flatten_with_path,
                        tree_map_with_path as map_with_path, tree_leaves_with_path as
                        leaves_with_path)

__all__ = ["all", "flatten", "leaves", "map", "reduce", "structure", "transpose", "unflatten",
           "flatten_with_path", "map_with_path", "leaves_with_path"]
