"""`jax.ad`: a `vjp` pullback that accumulates into mutable array references.

`vjp(f, *primals)[1].with_refs(*specs)` takes, for every primal leaf, a spec: a `Ref`
to add that leaf's cotangent into (`ref[...] += ct`; the result has `GradRef()` there),
`DontWant()` (not computed for the caller; `DidntWant()` there) or `GradValue()` (the
cotangent, as the plain pullback returns it). `GradRef` and `DidntWant` are pytree nodes
with no leaves, `GradValue` and `DontWant` are leaves, as in JAX 0.10.2.
"""
from __future__ import annotations

import dataclasses
import functools

from . import tree_util
from .errors import StructureError
from .primitives.state import Ref, ref_addupdate

__all__ = ["GradRef", "GradValue", "DontWant", "DidntWant", "pullback_into", "VjpFunction"]


@dataclasses.dataclass(frozen=True, slots=True)
class GradValue:
    """Spec of a primal whose cotangent the pullback returns as a value."""


@dataclasses.dataclass(frozen=True, slots=True)
class GradRef:
    """Result in place of a cotangent that was added into a `Ref`."""


@dataclasses.dataclass(frozen=True, slots=True)
class DontWant:
    """Spec of a primal whose cotangent the caller does not want."""


@dataclasses.dataclass(frozen=True, slots=True)
class DidntWant:
    """Result in place of a cotangent the caller did not want."""


for _cls in (GradRef, DidntWant):   # no leaves: they vanish from a flattened result
    tree_util.register_pytree_node(_cls, lambda x: ((), None),
                                   lambda _aux, _xs, cls=_cls: cls())


def pullback_into(pullback, specs):
    """`pullback` (vjp's) with the cotangents routed by `specs` (one per primal, each
    a tree of `Ref` / `GradValue()` / `DontWant()` shaped like that primal)."""
    return functools.partial(_run, pullback, specs)


def _run(pullback, specs, out_ct):
    cts = pullback(out_ct)
    ct_leaves, ct_tree = tree_util.tree_flatten(cts)
    spec_leaves, spec_tree = tree_util.tree_flatten(tuple(specs))
    if spec_tree != ct_tree:
        raise StructureError(f"with_refs takes one spec per primal leaf, shaped like the "
                             f"primals {ct_tree}; got {spec_tree}",
                             hint="give a Ref, GradValue() or DontWant() for every leaf")
    out = []
    for spec, ct in zip(spec_leaves, ct_leaves):
        if isinstance(spec, Ref):
            ref_addupdate(spec, ..., ct)
            out.append(GradRef())
        elif isinstance(spec, DontWant):
            out.append(DidntWant())
        elif isinstance(spec, GradValue):
            out.append(ct)
        else:
            raise StructureError(f"with_refs: a spec is a Ref, GradValue() or DontWant(), "
                                 f"got {type(spec).__name__}")
    return tree_util.tree_unflatten(ct_tree, out)


class VjpFunction(tree_util.Partial):
    """The pullback `vjp` returns (JAX's `VJP`): call it on a cotangent;
    `with_refs(*specs)` adds cotangents into `Ref`s instead (below)."""

    def with_refs(self, *maybe_ct_refs):
        """The pullback with each primal's cotangent routed by its spec: a `Ref` (added
        into it), `ad.GradValue()` (returned) or `ad.DontWant()`."""
        return pullback_into(self, maybe_ct_refs)


tree_util.register_pytree_node(
    VjpFunction, lambda p: ((p.args, p.keywords), p.func),
    lambda func, xs: VjpFunction(func, *xs[0], **xs[1]))
