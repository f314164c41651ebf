"""`astjax.custom_batching` (JAX's `jax.custom_batching`): functions with their own
batching rule -- `custom_vmap` (define the rule with `def_vmap`) and
`sequential_vmap` (batched by looping over the examples with `lax.map`).

A `custom_vmap` function called outside transformations just runs; staged, it becomes
one `custom_vmap_call` equation (primitives/custom_batching.py) holding the staged
function and the rule. Under `vmap` the rule is called as
`rule(axis_size, in_batched, *args)`: `in_batched` has one entry per argument, a
pytree of bools saying which leaves carry the batch axis (at dim 0); the rule returns
`(out, out_batched)`, `out_batched` a pytree of bools (or a prefix of one) for
`out`. Derivatives are those of the function itself."""
from __future__ import annotations

import functools
import inspect

from . import core, lax, tree_util
from .core import bind
from .custom_api import _forward_def, _staged
from .errors import ArgumentTypeError, StructureError
from .primitives.custom_derivatives import custom_vmap_call_p
from .staging import as_callable, leaf_aval, stage_flat

__all__ = ["custom_vmap", "sequential_vmap"]


class custom_vmap:
    """`f` with a user-defined batching rule: decorate `f`, then give the rule with
    `@f.def_vmap`."""

    def __init__(self, fun):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.vmap_rule = None

    __getattr__ = _forward_def

    def def_vmap(self, vmap_rule):
        """Set the batching rule `vmap_rule(axis_size, in_batched, *args) ->
        (out, out_batched)`; returns it."""
        self.vmap_rule = vmap_rule
        return vmap_rule

    def __call__(self, *args, **kwargs):
        if kwargs:   # (JAX's: keyword arguments bound to their positions)
            bound = inspect.signature(self.fun).bind(*args, **kwargs)
            bound.apply_defaults()
            args = bound.args + tuple(bound.kwargs.values())
        if self.vmap_rule is None:
            raise AttributeError(f"No batching rule defined for custom_vmap function "
                                 f"{getattr(self.fun, '__name__', '?')} using def_vmap.")
        if core.current_builder() is None:
            return self.fun(*args)
        leaves, in_tree = tree_util.flatten_for_staging((tuple(args), {}))
        closed, out_tree = stage_flat(as_callable(self.fun), in_tree,
                                      [leaf_aval(x) for x in leaves])
        body, consts = core.split_consts(closed)
        outs = bind(custom_vmap_call_p, *consts, *leaves, call_jaxpr=body,
                    rule=_Rule(self.vmap_rule, in_tree, out_tree), num_consts=len(consts))
        return tree_util.tree_unflatten(out_tree, outs)


class _Rule:
    """The user's rule on flat operands: `(flat outs, flat out_batched)`."""
    __slots__ = ("rule", "in_tree", "out_tree")

    def __init__(self, rule, in_tree, out_tree):
        self.rule, self.in_tree, self.out_tree = rule, in_tree, out_tree

    def __repr__(self):
        return f"vmap_rule={getattr(self.rule, '__name__', self.rule)}"

    def __call__(self, axis_size, batched, flat_args):
        args, _ = tree_util.tree_unflatten(self.in_tree, [_staged(x) for x in flat_args])
        in_batched, _ = tree_util.tree_unflatten(self.in_tree, list(batched))
        res = self.rule(axis_size, list(in_batched), *args)
        if not (isinstance(res, (tuple, list)) and len(res) == 2):
            raise ArgumentTypeError("a custom_vmap rule must return a pair (out, "
                                    f"out_batched), got {type(res).__name__}")
        out, out_batched = res
        flat, tree = tree_util.tree_flatten(out)
        if tree != self.out_tree:
            raise StructureError(f"the custom_vmap rule's output has structure {tree}, the "
                                 f"function's has {self.out_tree}")
        flags = tree_util.tree_leaves(tree_util.tree_broadcast(out_batched, out))
        if not all(isinstance(b, bool) for b in flags):
            raise ArgumentTypeError("a custom_vmap rule's out_batched must hold bools")
        for o, b in zip(flat, flags):
            if b and (not core.get_aval(o).shape or core.get_aval(o).shape[0] != axis_size):
                raise ArgumentTypeError(f"the custom_vmap rule marked an output of shape "
                                        f"{core.get_aval(o).shape} batched, which has no "
                                        f"leading axis of size {axis_size}")
        return flat, flags


def sequential_vmap(f):
    """`f` as a `custom_vmap` whose batching rule runs `f` once per example, in a
    loop (`lax.map`), its unbatched arguments shared by all examples."""
    f = custom_vmap(f)

    @f.def_vmap
    def rule(axis_size, in_batched, *args):
        del axis_size
        leaves, tree = tree_util.tree_flatten(args)
        flags = tree_util.tree_leaves(tree_util.tree_broadcast(list(in_batched), list(args)))
        mapped = [x for x, b in zip(leaves, flags) if b]

        def one(xs):
            it = iter(xs)
            return f.fun(*tree_util.tree_unflatten(tree, [next(it) if b else x
                                                          for x, b in zip(leaves, flags)]))
        out = lax.map(one, mapped)
        return out, tree_util.tree_map(lambda _: True, out)
    return f
