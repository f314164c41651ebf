"""`has_aux`: the auxiliary output of a differentiated function, returned as JAX
returns it.

JAX differentiates by tracing, so what a function returns beside the value it
differentiates comes back as it is: a tracer becomes an array, and anything else -- a
string, None, a Python int, an object, a NumPy array -- is the very object the function
returned, eagerly and inside `jit`. Only a transformation that batches (`jacfwd`, hence
`hessian`) requires every leaf to be a valid JAX type, raising TypeError otherwise.

astjax stages instead, and a staged function's outputs are IR values. At the two
staging boundaries a transform with `has_aux` crosses -- staging the user function
(`ad_base._stage`) and the jit of an eager call (`ad_base._Transformed`) -- the aux is
wrapped in `HiddenAux`, a pytree node whose children are only its staged leaves and
whose node data keeps the other leaves as Python objects. The staged program outputs
the staged leaves; unflattening the node (as every transform does with its out_tree)
puts the objects back. An eager call whose aux held objects keeps no program: the
next call stages again and returns its own objects, as JAX's eager transforms do.
"""
from __future__ import annotations

from . import core, tree_util
from .errors import (ArgumentTypeError, ArgumentValueError, AstjaxError,
                     DifferentiationTypeError)

__all__ = ["HiddenAux", "split_output", "hide_at", "OBJECTS_HIDDEN"]

# how each transform takes `fun`'s output apart: JAX checks for a pair where it
# linearizes (grad, value_and_grad, vjp, linearize, jacrev) and unpacks the output
# with Python's `a, b = out` where it pushes tangents forward (jvp, jacfwd)
_UNPACKING = ("jvp", "jacfwd")


class HiddenAux:
    """A pytree node around an aux output: children its staged leaves, node data
    (`_Objects`) the structure and the leaves that stay Python objects. Unflattening
    gives the aux itself, not a HiddenAux. `batched`: the leaves must be valid JAX types
    (`jacfwd`'s aux is batched, as JAX's `vmap` output)."""
    __slots__ = ("value", "batched")

    def __init__(self, value, batched=False):
        self.value, self.batched = value, batched


class _Objects:
    """The node data of a HiddenAux: the aux's structure (`flatten_for_staging`) and
    {leaf position: object} for the leaves that are not staged. Equal when the
    structures are equal and the objects are the same objects."""
    __slots__ = ("tree", "objects")

    def __init__(self, tree, objects):
        self.tree, self.objects = tree, objects

    def _key(self):
        return self.tree, tuple((i, id(o)) for i, o in sorted(self.objects.items()))

    def __eq__(self, other):
        return isinstance(other, _Objects) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return f"aux {self.tree} with objects {self.objects!r:.60}"


def _staged(x) -> bool:
    return isinstance(x, (core.Tracer, core.WeakConst))


#: how many staged aux outputs held Python objects so far: an eager call that staged one
#: does not keep its program (`ad_base._Transformed._call_compiled`), since JAX returns
#: the objects of each call (a new list, a mutated NumPy array), not the first call's
OBJECTS_HIDDEN = [0]


def _flatten(node):
    leaves, tree = tree_util.flatten_for_staging(node.value)
    objects = {i: x for i, x in enumerate(leaves) if not _staged(x)}
    if objects:
        OBJECTS_HIDDEN[0] += 1
    if node.batched:
        for x in objects.values():
            try:
                core.get_aval(x)
            except TypeError:
                raise ArgumentTypeError(f"Output from batched function {x!r} with type "
                                        f"{type(x)} is not a valid JAX type",
                                        hint="return arrays or Python scalars as the aux "
                                             "of jacfwd/hessian") from None
    return [x for i, x in enumerate(leaves) if i not in objects], _Objects(tree, objects)


def _unflatten(data, children):
    it = iter(children)
    return tree_util.tree_unflatten(data.tree, [
        data.objects[i] if i in data.objects else next(it)
        for i in range(data.tree.num_leaves)])


tree_util.register_pytree_node(HiddenAux, _flatten, _unflatten)


def split_output(out, kind: str):
    """`(main, HiddenAux(aux))` of the output of a function given to the transform
    `kind` with has_aux=True, or JAX's error for an output that is not a pair."""
    if kind in _UNPACKING:
        try:
            main, aux = out
        except AstjaxError:
            raise
        except ValueError as e:
            raise ArgumentValueError(str(e), hint="with has_aux=True, return (value, aux)") \
                from None
        except TypeError as e:
            raise ArgumentTypeError(str(e), hint="with has_aux=True, return (value, aux)") \
                from None
        return main, HiddenAux(aux, batched=kind == "jacfwd")
    if not isinstance(out, (list, tuple)) or len(out) != 2:
        raise DifferentiationTypeError(
            "expected function with aux output to return a two-element tuple, but got "
            f"type {type(out)} with value {out!r:.200}",
            hint="with has_aux=True, return (value, aux): value the output to "
                 "differentiate, aux anything else")
    return out[0], HiddenAux(out[1])


def hide_at(out, path: tuple):
    """`out` (nested tuples) with its element at `path` wrapped in a HiddenAux: where a
    transform with has_aux puts the aux in what it returns."""
    if not path:
        return HiddenAux(out)
    parts = list(out)
    parts[path[0]] = hide_at(parts[path[0]], path[1:])
    return tuple(parts)
