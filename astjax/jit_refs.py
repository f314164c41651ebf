"""`jit` of a function that takes mutable array references from outside: a `Ref`
argument (`jit(f)(r)`), or an eager `Ref` the function closes over. As in JAX, the
call reads the references' current values and, when the program has run, stores their
final values back, so `f` mutates them in place.

`RefEntry` is the compiled signature for such a function (`api.Jitted` makes one in
place of its plain entry): the program of `transforms/discharge.lift_outside_refs`
-- values in, the function's results plus the references' final values out -- compiled
as a plain entry. It is never put on the fast dispatch paths (they take plain
entries only), so every call goes through `run`, which does the reads and the stores.
"""
from __future__ import annotations

from . import sharding_impls as shd, tree_util
from .codegen.spmd import SpmdEntry
from .dispatch_keys import Entry
from .errors import JAXValueError, caller_location
from .jit_ordered import OrderedEntry, has_ordered_effects
from .primitives.state import Ref, freeze, ref_set
from .transforms.dce import dce_closed
from .transforms.discharge import lift_outside_refs


class RefEntry:
    """One compiled signature of a jitted function taking references from outside."""

    def __init__(self, closed, out_tree, name, compiler_options=()):
        self.closed, self.out_tree, self.in_tree = closed, out_tree, None
        lifted, self.ref_consts, self.ref_args = lift_outside_refs(closed)
        self.n_out = len(closed.jaxpr.outvars)
        flat = tree_util.tree_structure([0] * len(lifted.jaxpr.outvars))
        lifted = dce_closed(lifted)
        if shd.context_meshes[0] and shd.context_mesh() is not None:
            # under set_mesh, as JAX: partitioned over its mesh, the layouts XLA's
            # (replicated values: the references' values, the results laid out over it)
            j = lifted.jaxpr
            self.inner = SpmdEntry(lifted, flat, name, [None] * len(j.invars),
                                   [None] * len(j.outvars), [], (), caller_location(),
                                   compiler_options).compile()
        else:   # (ordered effects: their tokens threaded, as a plain `jit`'s)
            self.inner = (OrderedEntry if has_ordered_effects(lifted) else Entry)(
                lifted, flat, name, (), compiler_options)
        self.text = self.inner.text

    @property
    def executable(self):
        return self.inner.executable

    def compile(self):
        self.inner.compile()
        return self

    def run(self, leaves):
        """Run on flat argument leaves (the `Ref` arguments among them), storing the
        references' final values back."""
        refs = list(self.ref_consts) + [leaves[i] for i in self.ref_args]
        if len({id(r) for r in refs}) != len(refs):
            raise JAXValueError("the same mutable array reference is passed to a jitted "
                                "function more than once (as two arguments, or as an "
                                "argument it also closes over)", loc=caller_location(),
                                hint="pass each Ref once")
        for r in refs:
            if not isinstance(r, Ref):
                raise JAXValueError(f"a jitted function staged for a Ref argument was "
                                    f"given a {type(r).__name__}", loc=caller_location())
        values = [freeze(r) for r in self.ref_consts] + [
            freeze(x) if i in self.ref_args else x for i, x in enumerate(leaves)]
        outs = self.inner.run(values)
        for r, v in zip(refs, outs[self.n_out:]):
            ref_set(r, ..., v)
        return tree_util.tree_unflatten(self.out_tree, outs[:self.n_out])
