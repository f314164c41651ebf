"""`lax.cond`, `lax.switch`, `lax.while_loop`, `lax.fori_loop`, `lax.scan`, `lax.map`.

Each stages its function arguments into closed sub-jaxprs (user functions are
converted, so Python control flow works inside them too), turns everything they
capture into explicit operands, and binds the primitive."""
from __future__ import annotations

import numpy as np

from . import core, dtypes, tree_util
from .core import bind
from .errors import AstjaxError, LoopCarryError, ShapeError
from .primitives.control import cond_p, scan_p, while_p

__all__ = ["cond", "switch", "while_loop", "fori_loop", "scan", "map", "stage_sub",
           "closure_convert", "join_consts"]


def _aval(x):
    return core.get_aval(x)


def stage_sub(fun, in_tree, in_avals, hints=None):
    """Stage `fun` on Tracers -> (Jaxpr, consts, out_tree). Consts are the values the
    function captured (outer Tracers or constants), to be passed as operands."""
    from .staging import as_callable
    target = as_callable(fun)
    out_tree = [None]

    def body(*tracers):
        args = tree_util.tree_unflatten(in_tree, tracers)
        out = target(*args)
        leaves, out_tree[0] = tree_util.tree_flatten(out)
        return leaves

    jaxpr, consts = core.stage_open(body, in_avals, hints)
    return jaxpr, consts, out_tree[0]


def closure_convert(jaxpr: core.Jaxpr) -> core.ClosedJaxpr:
    """constvars become leading invars."""
    return core.ClosedJaxpr(core.Jaxpr([], jaxpr.constvars + jaxpr.invars, jaxpr.outvars,
                                       jaxpr.eqns), [])


def join_consts(jaxprs_consts):
    """Branches with their own consts -> branches that all take every const as
    leading operands (JAX's common-consts form). Returns (closed jaxprs, consts)."""
    all_consts = []
    for _, consts in jaxprs_consts:
        all_consts.extend(consts)
    out = []
    offset = 0
    for jaxpr, consts in jaxprs_consts:
        before = [core.Var(_aval(c)) for c in all_consts[:offset]]
        after = [core.Var(_aval(c)) for c in all_consts[offset + len(consts):]]
        invars = before + jaxpr.constvars + after + jaxpr.invars
        out.append(core.ClosedJaxpr(core.Jaxpr([], invars, jaxpr.outvars, jaxpr.eqns), []))
        offset += len(consts)
    return out, all_consts


def _promote_weak(jaxpr: core.Jaxpr, target_avals):
    """Make outputs strong where a target is strong (a weak 1.0 vs a strong f32)."""
    outs = list(jaxpr.outvars)
    eqns = list(jaxpr.eqns)
    from .primitives.structural import convert_element_type_p
    for i, (v, t) in enumerate(zip(outs, target_avals)):
        if v.aval.weak_type and not t.weak_type and v.aval.dtype == t.dtype:
            nv = core.Var(v.aval.update(weak_type=False))
            eqns.append(core.Eqn(convert_element_type_p, [v], [nv],
                                 dict(new_dtype=t.dtype, weak_type=False)))
            outs[i] = nv
    return core.Jaxpr(jaxpr.constvars, jaxpr.invars, outs, eqns)


def _ensure_types(what, got_tree, got, want_tree, want):
    if got_tree != want_tree:
        raise AstjaxError(f"{what}: the output structure {got_tree} does not match {want_tree}",
                          hint="return the same pytree structure from every branch/iteration")
    for i, (a, b) in enumerate(zip(got, want)):
        if a.shape != b.shape or a.dtype != b.dtype:
            raise LoopCarryError(f"{what}: output {i} has type {a.str_short()}, expected "
                                 f"{b.str_short()}")


def _index_of(pred):
    av = _aval(pred)
    if av.shape != ():
        raise ShapeError(f"the predicate of cond must be a scalar, got shape {av.shape}",
                         hint="use jnp.where for elementwise selection")
    from . import lax
    if av.dtype == dtypes.bool_:
        return lax.convert_element_type(pred, dtypes.int32)
    return lax.convert_element_type(pred, dtypes.int32) if av.dtype != dtypes.int32 else pred


def switch(index, branches, *operands):
    """Apply `branches[index](*operands)`; the index is clamped, as in JAX."""
    from . import lax
    leaves, in_tree = tree_util.tree_flatten(tuple(operands))
    avals = [_aval(x).strip_weak_type() if not dtypes.is_weak_scalar(x) else _aval(x) for x in leaves]
    idx = _index_of(index)
    if len(branches) > 1 and _aval(index).dtype != dtypes.bool_:
        idx = lax.clamp(np.int32(0), idx, np.int32(len(branches) - 1))
    staged = [stage_sub(b, in_tree, avals) for b in branches]
    out_tree = staged[0][2]
    out_avals = [v.aval for v in staged[0][0].outvars]
    for jaxpr, _, tree in staged[1:]:
        _ensure_types("cond", tree, [v.aval for v in jaxpr.outvars], out_tree, out_avals)
    strong = [a.update(weak_type=all(j.outvars[i].aval.weak_type for j, _, _ in staged))
              for i, a in enumerate(out_avals)]
    staged = [(_promote_weak(j, strong), c) for j, c, _ in staged]
    closed, consts = join_consts(staged)
    outs = bind(cond_p, idx, *consts, *leaves, branches=tuple(closed))
    return tree_util.tree_unflatten(out_tree, outs)


def cond(pred, true_fun, false_fun, *operands):
    """JAX's `lax.cond`: branches=(false_fun, true_fun) indexed by the predicate."""
    if len(operands) == 0:
        operands = ()
    return switch(pred, (false_fun, true_fun), *operands)


def _carry_avals(leaves):
    return [_aval(x) for x in leaves]


def while_loop(cond_fun, body_fun, init_val):
    leaves, tree = tree_util.tree_flatten(init_val)
    args_tree = tree_util.tree_structure((init_val,))
    avals = _carry_avals(leaves)
    body_j, body_c, body_tree = stage_sub(body_fun, args_tree, avals)
    body_out = [v.aval for v in body_j.outvars]
    if body_tree != tree or any(a.shape != b.shape or a.dtype != b.dtype
                                for a, b in zip(body_out, avals)):
        # a weak-typed initial value gets the body's strong type, as in JAX
        fixed = [b if (a.shape == b.shape and a.dtype == b.dtype) else a for a, b in zip(avals, body_out)]
        _ensure_types("while_loop body", body_tree, body_out, tree, fixed)
    if any(a.weak_type and not b.weak_type for a, b in zip(avals, body_out)):
        from . import lax
        leaves = [lax.convert_element_type(x, b.dtype) if a.weak_type and not b.weak_type else x
                  for x, a, b in zip(leaves, avals, body_out)]
        avals = _carry_avals(leaves)
        body_j, body_c, body_tree = stage_sub(body_fun, args_tree, avals)
    body_j = _promote_weak(body_j, avals)
    cond_j, cond_c, _ = stage_sub(cond_fun, args_tree, avals)
    cond_out = [v.aval for v in cond_j.outvars]
    if len(cond_out) != 1 or cond_out[0].shape != () or cond_out[0].dtype != dtypes.bool_:
        raise AstjaxError(f"while_loop cond_fun must return a boolean scalar, got "
                          f"{', '.join(a.str_short() for a in cond_out)}")
    outs = bind(while_p, *cond_c, *body_c, *leaves,
                cond_jaxpr=closure_convert(cond_j), body_jaxpr=closure_convert(body_j),
                cond_nconsts=len(cond_c), body_nconsts=len(body_c))
    return tree_util.tree_unflatten(tree, outs)


def _static_int(v):
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, core.Tracer) and v.known is not None:
        return int(v.known)
    return None


def fori_loop(lower, upper, body_fun, init_val, *, unroll=None):
    lo, hi = _static_int(lower), _static_int(upper)
    if lo is not None and hi is not None:
        def step(carry, i):
            return body_fun(i, carry), None
        from . import lax
        idx = lax.iota(dtypes.int32, max(hi - lo, 0))
        if lo:
            idx = lax.add(idx, np.int32(lo))
        out, _ = scan(step, init_val, idx, unroll=unroll or 1)
        return out
    from . import lax
    lower = lax.convert_element_type(lower, dtypes.int32) if not isinstance(lower, int) else np.int32(lower)
    upper = lax.convert_element_type(upper, dtypes.int32) if not isinstance(upper, int) else np.int32(upper)

    def c(state):
        i, hi_, _ = state
        return lax.lt(i, hi_)

    def b(state):
        i, hi_, x = state
        return lax.add(i, np.int32(1)), hi_, body_fun(i, x)
    return while_loop(c, b, (lower, upper, init_val))[2]


def scan(f, init, xs=None, length=None, reverse=False, unroll=1, _split_transpose=False):
    carry_leaves, carry_tree = tree_util.tree_flatten(init)
    x_leaves, x_tree = tree_util.tree_flatten(xs)
    lengths = {_aval(x).shape[0] for x in x_leaves if _aval(x).shape}
    if any(not _aval(x).shape for x in x_leaves):
        raise ShapeError("scan got a scalar in xs: every xs leaf needs a leading axis")
    if length is not None:
        lengths.add(int(length))
    if len(lengths) != 1:
        raise ShapeError(f"scan got inconsistent lengths {sorted(lengths)}" if lengths else
                         "scan needs xs or an explicit length")
    n = lengths.pop()
    carry_avals = _carry_avals(carry_leaves)
    x_avals = [_aval(x).update(shape=_aval(x).shape[1:]) for x in x_leaves]
    in_tree = tree_util.tree_structure((init, xs))

    def stage(c_avals):
        return stage_sub(f, in_tree, c_avals + x_avals)

    jaxpr, consts, out_tree = stage(carry_avals)
    children = out_tree.children if out_tree.node_type is tuple else None
    if children is None or len(children) != 2:
        raise AstjaxError("the scan body must return a pair (carry, y)")
    k = children[0].num_leaves
    new_carry = [v.aval for v in jaxpr.outvars[:k]]
    if children[0] != carry_tree:
        raise LoopCarryError(f"scan body carry structure {children[0]} does not match {carry_tree}")
    if any(a.weak_type and not b.weak_type and a.dtype == b.dtype for a, b in zip(carry_avals, new_carry)):
        from . import lax
        carry_leaves = [lax.convert_element_type(x, b.dtype) if a.weak_type and not b.weak_type
                        else x for x, a, b in zip(carry_leaves, carry_avals, new_carry)]
        carry_avals = _carry_avals(carry_leaves)
        jaxpr, consts, out_tree = stage(carry_avals)
        new_carry = [v.aval for v in jaxpr.outvars[:k]]
    for i, (a, b) in enumerate(zip(carry_avals, new_carry)):
        if a.shape != b.shape or a.dtype != b.dtype:
            raise LoopCarryError(f"scan carry {i} has type {a.str_short()} before the loop and "
                                 f"{b.str_short()} after one iteration")
    jaxpr = _promote_weak(jaxpr, carry_avals + [v.aval for v in jaxpr.outvars[k:]])
    outs = bind(scan_p, *consts, *carry_leaves, *x_leaves, jaxpr=closure_convert(jaxpr),
                length=n, reverse=bool(reverse), num_consts=len(consts), num_carry=k,
                unroll=int(unroll) if not isinstance(unroll, bool) else (n if unroll else 1))
    carry_out = tree_util.tree_unflatten(carry_tree, outs[:k])
    ys = tree_util.tree_unflatten(children[1], outs[k:])
    return carry_out, ys


def map(f, xs, *, batch_size=None):  # noqa: A001
    _, ys = scan(lambda c, x: (c, f(x)), (), xs)
    return ys
