"""Mutable hi values (`astjax.hi_state`: flax's hijax Variables) at a transformation's
boundary: passed to `jit`, `eval_shape` or `grad`, or closed over by the function
(`hi_state.watching` finds those) -- by `vmap`, `checkpoint`, `custom_jvp` /
`custom_vjp` too (`closed_over`: their states passed in and out) and `jvp` / `vjp` /
`linearize` (`aux_carrying`: out in the aux output). `check_jvp`: a hi primitive
whose operand carries a tangent runs its type's jvp rule, for what it raises, as JAX.

As JAX lowers such a value, the call here lowers each one to its arrays (`read_loval`),
its qdd kept static (a `hi_state.Lo` node, so the staging is keyed by it); stages the
function on a fresh value raised from the staged arrays (`new_from_loval`) -- a value
it closes over keeps its identity, the staged state swapped into it -- and returns,
after the function's results, each one's final qdd and arrays; and stores those into
the caller's objects (`update_from_loval`). As in JAX, an object passed twice is two
values, stored back in turn.
"""
from __future__ import annotations

from . import core, dtypes, hi_state, tree_util
from .ad_frames import reaches_tangent
from .errors import ArgumentTypeError
from .hi_state import (CapturedHiError, Idents, Lowering, carrying,  # noqa: F401
                       cur_qdd, differentiated, finals, has_mutable, hi_type, is_mutable,
                       active, raise_tree, states_kept, swapped_in, watched,
                       watching)
from .staging import as_callable, differentiation_level
from .transforms.ad import zeros_like_aval


def run_lowered(fun, tree, nodes=(), cap_objs=Idents(), diff=()):
    """What a boundary stages: `fun(*args, **kwargs)` on the raised `tree = (args,
    kwargs)` -> (its results, each raised value's final state: `Lo` nodes). `nodes`: the
    `Lo` nodes of the values `cap_objs` that `fun` closes over (`Lowering(objs)`'s
    tree), swapped into those same objects while it runs; their finals follow. `diff`:
    the indices of the raised values a `grad` differentiates."""
    (args, kwargs), objs = raise_tree(tree, diff)
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


def grad_call(make, fun, has_aux, with_value, args, kwargs, caps=(), nums=()):
    """`grad` / `value_and_grad` of `fun` with mutable hi values among its arguments,
    or `caps` it closes over (passed after the others): `make(g)` is the same
    transformation of `g` with `has_aux=True`; the final states ride in the aux output,
    then are stored back. Those among the differentiated arguments `nums` reach their
    type's jvp rule (`check_jvp`), as in JAX; past it, a located error."""
    low, cap = Lowering((args, kwargs)), Lowering(list(caps))
    starts = [0]
    for a in args:
        starts.append(starts[-1] + sum(map(is_mutable, tree_util.tree_leaves(a))))
    diff = frozenset(j for i in nums for j in range(starts[i], starts[i + 1]))
    cap_objs = Idents(caps)

    def lowered(*a, **k):
        out, states = run_lowered(fun, (a[:-1], k), a[-1], cap_objs, diff)
        return (out[0], (out[1], states)) if has_aux else (out, states)

    a, k = low.tree
    try:
        res = make(lowered)(*a, cap.tree, **k)
    finally:
        differentiated.clear()
    check_not_differentiated(args, nums)
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


def primal_check(stage, fun, primals, what) -> None:
    """`jvp` / `vjp` / `linearize` (`what`) with mutable hi values among `primals`: as
    JAX differentiates them, `stage(g, lowered)` -- a reverse differentiation staging
    `g`, `fun` on values raised from the lowered primals, all differentiated -- has the
    hi primitives that touch them run their types' jvp rules (`check_jvp`), for what
    they raise (flax: "jvp not implemented for 'get_variable' with QDD"); past them, a
    located error. Nothing is stored back."""
    low = Lowering(tuple(primals))
    diff = frozenset(range(len(low.objs)))

    def g(*a):
        return run_lowered(fun, (a, {}), diff=diff)[0]
    try:
        with watching(writes_only=True):   # (values it closes over: put back)
            stage(g, low.tree)
    except CapturedHiError:
        pass
    finally:
        differentiated.clear()
    i = next(i for i, p in enumerate(primals) if has_mutable(p))
    raise ArgumentTypeError(
        f"{what} primal {i} holds a mutable hi value (a hijax Variable with "
        f"quasi-dynamic data): astjax does not define its tangent",
        hint="differentiate with respect to its arrays (e.g. nnx.with_vars(..., "
             "hijax=False)), or close over it")


def check_not_differentiated(args, argnums) -> None:
    """A mutable hi value among differentiated arguments whose type's jvp rule let it
    pass is refused (astjax differentiates arrays only)."""
    for i in argnums:
        if has_mutable(args[i]):
            raise ArgumentTypeError(
                f"argument {i} is differentiated and holds a mutable hi value (a hijax "
                f"Variable with quasi-dynamic data): astjax does not define its tangent",
                hint="differentiate with respect to its arrays (e.g. nnx.with_vars(..., "
                     "hijax=False)), or pass it as a non-differentiated argument")


_in_rule = [False]


def check_jvp(prim, args, params) -> None:
    """Where JAX's differentiation reaches the hi primitive `prim` -- an operand is a
    staged value carrying a tangent of the differentiation staging it, or a hi value a
    `grad` differentiates -- run its `jvp` rule as JAX does, for what it raises (JAX's
    and flax's "did you forget jax.lax.stop_gradient?", NotImplementedError). Its
    result is not used: astjax differentiates the operations of `to_lojax`; the
    states of the hi values it touched are put back."""
    rule = getattr(type(prim), "jvp", None)   # (a class's own: a Primitive's instance
    if (rule is None or _in_rule[0] or hi_state.quiet()   # slot is None; astjax's own
            or not any(map(_maybe_perturbed, args))):    # reads and stores: none)
        return
    if not differentiation_level.depth:   # (a checkpoint's body: not differentiated)
        return
    perturbed = [id(x) in differentiated or _carries_tangent(x) for x in args]
    if not any(perturbed):
        return
    _in_rule[0] = True
    try:
        tangents = [(_hi_tangent(x) if id(x) in differentiated else x) if p
                    else core.Zero(hi_type(x) or core.get_aval(x))
                    for x, p in zip(args, perturbed)]
        with states_kept(args):
            rule(prim, tuple(args), tuple(tangents), **params)
    finally:
        _in_rule[0] = False


def _carries_tangent(x):
    """An inexact staged value carrying a tangent of a differentiation staging now,
    also inside a loop body, a branch or an inner jit (`ad_frames.reaches_tangent`)."""
    return (isinstance(x, core.Tracer) and x.known is None
            and dtypes.is_inexact(x.aval.dtype) and reaches_tangent(x))


def _maybe_perturbed(x):
    return isinstance(x, core.Tracer) or id(x) in differentiated


def _hi_tangent(x):
    """A zero tangent value of the hi value `x`'s tangent type (None where the type
    does not build one)."""
    try:
        qdd = cur_qdd(x)
        t_qdd = qdd.to_tangent_qdd()
        vals = [zeros_like_aval(core.get_aval(v)) for v in hi_type(x).read_loval(qdd, x)]
        return hi_type(x).to_tangent_aval().new_from_loval(t_qdd, *vals)
    except Exception:   # (no tangent type: the rule sees none)
        return None
