"""Mutable hi values (`astjax.hi_state`: flax's hijax Variables) at a transformation's
boundary: passed to `jit`, `eval_shape` or as a non-differentiated argument of `grad`,
or closed over by the function (`hi_state.watching` finds those).

As JAX lowers such a value, the call here lowers each one to its arrays (`read_loval`),
its qdd kept static (a `hi_state.Lo` node, so the staging is keyed by it); stages the
function on a fresh value raised from the staged arrays (`new_from_loval`) -- a value
it closes over keeps its identity, the staged state swapped into it -- and returns,
after the function's results, each one's final qdd and arrays; and stores those into
the caller's objects (`update_from_loval`). As in JAX, an object passed twice is two
values, stored back in turn.
"""
from __future__ import annotations

from .errors import ArgumentTypeError
from .hi_state import (CapturedHiError, Idents, Lowering, carrying,  # noqa: F401
                       finals, has_mutable, hi_type, pytype_aval_mappings, raise_tree,
                       swapped_in, watched, watching)
from .staging import as_callable


def run_lowered(fun, tree, nodes=(), cap_objs=Idents()):
    """What a boundary stages: `fun(*args, **kwargs)` on the raised `tree = (args,
    kwargs)` -> (its results, each raised value's final state: `Lo` nodes). `nodes`: the
    `Lo` nodes of the values `cap_objs` that `fun` closes over (`Lowering(objs)`'s
    tree), swapped into those same objects while it runs; their finals follow."""
    (args, kwargs), objs = raise_tree(tree)
    out, cap_finals = swapped_in(cap_objs, nodes, lambda: as_callable(fun)(*args, **kwargs))
    return out, finals(objs) + cap_finals


def closed_over(fun, objs):
    """`fun` as a function of `(*args, nodes, **kwargs)` -> `(its result, states)`: run
    with the mutable hi values `objs` it closes over holding the states `nodes` (their
    `Lowering`'s tree), their final states returned."""
    cap_objs = Idents(objs)

    def lowered(*a, **k):
        return run_lowered(fun, (a[:-1], k), a[-1], cap_objs)
    return lowered


def grad_call(make, fun, has_aux, with_value, args, kwargs, caps=()):
    """`grad` / `value_and_grad` of `fun` with mutable hi values among its (not
    differentiated) arguments, or `caps` it closes over (passed after the others):
    `make(g)` is the same transformation of `g` with `has_aux=True`; the final states
    ride in the aux output, then are stored back."""
    low, cap = Lowering((args, kwargs)), Lowering(list(caps))
    run = closed_over(fun, caps)

    def lowered(*a, **k):
        out, states = run(*a, **k)
        return (out[0], (out[1], states)) if has_aux else (out, states)

    a, k = low.tree
    res = make(lowered)(*a, cap.tree, **k)
    (value, pack), grads = res if with_value else ((None, res[1]), res[0])
    aux, states = pack if has_aux else (None, pack)
    low.write_back(states[:len(low.objs)])
    cap.write_back(states[len(low.objs):])
    if not with_value:
        return (grads, aux) if has_aux else grads
    return ((value, aux) if has_aux else value), grads


def aux_carrying(plain, transform, fun, has_aux):
    """`plain()` -- a transformation (`jvp`, `vjp`, `linearize`) of `fun` with
    `has_aux` -- watched; when `fun` writes mutable hi values it closes over,
    `transform(g)` instead: the same transformation, with `has_aux=True`, of `g`, which
    runs `fun` with their states swapped in and returns their final states in its aux
    output (as JAX's effects leave a differentiated function); those are stored back."""
    def lifted(objs):
        cap = Lowering(list(objs))
        run = closed_over(fun, objs)

        def g(*a, **k):
            out, states = run(*a, cap.tree, **k)
            return (out[0], (out[1], states)) if has_aux else (out, states)

        *res, pack = transform(g)
        aux, states = pack if has_aux else (None, pack)
        cap.write_back(states)
        return (*res, aux) if has_aux else tuple(res)
    return carrying(plain, lifted)


def check_not_differentiated(args, argnums) -> None:
    """A mutable hi value among differentiated arguments is refused (JAX does not
    define its tangent either)."""
    for i in argnums:
        if has_mutable(args[i]):
            raise ArgumentTypeError(
                f"argument {i} is differentiated and holds a mutable hi value (a hijax "
                f"Variable with quasi-dynamic data): its tangent type is not defined",
                hint="differentiate with respect to its arrays (e.g. nnx.with_vars(..., "
                     "hijax=False)), or pass it as a non-differentiated argument")
