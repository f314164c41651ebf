"""Shape polymorphism in `jax.export`: the specifications users write and what an
exported module does with them.

`symbolic_args_specs(args, "b, ...")` makes the `ShapeDtypeStruct`s to export with
(the dimensions themselves are astjax/shape_poly.py's). A module exported for
symbolic shapes takes arguments with `?` dimensions; its `@main` computes the
dimension variables from the arguments' sizes (`dimension_values`, in
codegen/dynamic_shapes.py) and passes them to the program as `jax.global_constant`
arguments. A dimension used as an array value (`x.shape[0] / 2`) is the staged
`dim_as_value` of it.
"""
from __future__ import annotations

import numpy as np

from .. import core, tree_util
from ..api import ShapeDtypeStruct
from ..codegen.dynamic_shapes import dimension_values
from ..errors import JAXValueError
from ..primitives.exported_call import dim_as_value
from ..shape_poly import SymbolicScope, parse_spec
from ..shape_poly_expr import set_value_hook

__all__ = ["symbolic_args_specs", "dimension_values"]

# `b / 2`, `b * 1.5`, `2 ** b`: the dimension as a staged value, as JAX's __jax_array__
set_value_hook(dim_as_value, lambda: core.current_builder() is not None)


def symbolic_args_specs(args, shapes_specs, constraints=(), scope=None):
    """A pytree of `ShapeDtypeStruct`s like `args` (arrays or `ShapeDtypeStruct`s)
    with the shapes `shapes_specs` gives: None (the arguments' own shapes), one
    specification string for every argument, or a pytree of them matching a prefix
    of `args`; `...` and `_` in a specification take the argument's sizes. All the
    dimensions share one scope (`scope`, or a new one with `constraints`)."""
    if scope is not None and constraints:
        raise JAXValueError("Cannot use both `scope` and `constraints`")
    scope = scope if scope is not None else SymbolicScope(tuple(constraints))
    leaves, tree = tree_util.tree_flatten(args)
    if shapes_specs is None or isinstance(shapes_specs, str):
        specs = [shapes_specs] * len(leaves)
    else:
        specs = tree_util.tree_leaves(tree_util.tree_map(
            lambda s, a: [s] * len(tree_util.tree_leaves(a)), shapes_specs, args,
            is_leaf=lambda x: x is None or isinstance(x, str)))
        specs = [s for group in specs for s in (group if isinstance(group, list) else [group])]
        if len(specs) != len(leaves):
            raise JAXValueError("export.symbolic_args_specs shapes_specs must be None, a "
                                "string, or a pytree prefix of the arguments")
    out = []
    for a, spec in zip(leaves, specs):
        shape = tuple(np.shape(a)) if not hasattr(a, "shape") else tuple(a.shape)
        dims = shape if spec is None else parse_spec(spec, scope, like=shape)
        out.append(ShapeDtypeStruct(dims, a.dtype))
    return tree_util.tree_unflatten(tree, out)
