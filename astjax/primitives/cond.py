"""`cond`: every rule of the structured conditional, `bind_cond`, and the public
`lax.cond` / `lax.switch`.

`cond[branches] index *ops -> stablehlo.case`. Branches are ClosedJaxprs without
consts: everything a branch reads from outside is an explicit operand
(`core.closure_convert` / `core.join_consts`).

jvp: each branch's JVP, with the union of the branches' nonzero tangent outputs.
partial eval: each branch splits into known/unknown parts; the known `cond` returns
every branch's residuals (zeros in the slots of the other branches), the unknown
`cond` takes them all. transpose: a `cond` of the branches' transposes.

vmap:
  * unmapped index: each branch is batched with the operands' dims; outputs that
    are mapped in any branch are mapped (at 0) in every branch.
  * mapped index (a per-lane predicate): every branch is evaluated for the whole
    batch and the outputs are combined with `select_n` on the per-lane index.
    NaN-safety scheme ("safe operands"): branch k never sees an input that the
    unbatched program would not feed it. For each branch k, a representative lane
    r_k that takes branch k is chosen (the lowest such lane); in lanes that do not
    take branch k, every mapped operand is replaced by lane r_k's operand
    (`select(takes_k, x, x[r_k])`). Branch k is wrapped in an unmapped
    `cond(any(takes_k), branch_k, zeros)`, so a branch that no lane takes is not
    evaluated at all. Consequently an untaken branch cannot produce NaN/inf (or
    fail to terminate, JAX #2947) unless the program itself does on some lane,
    and its discarded outputs receive zero cotangents at finite points, so no NaN
    reaches gradients either (JAX #5658): the zero cotangents of substituted lanes
    flow back to lane r_k's input multiplied by that lane's finite derivatives.

Printed source: `if`/`elif`/`else`.

The rules of this higher-order primitive receive the running pass `tx` first.
The loop primitives (`scan`, `while_loop`) share the helpers of this module.
"""
from __future__ import annotations

import ast
import copy
import weakref

import numpy as np

from .. import core, dtypes, hi_state, sharding_impls, tree_util
from ..config import config
from ..core import Eqn, Var, bind
from ..errors import DTypeError, NotImplementedInAstjaxError, ShapeError
from ..pyast import pyconst, statement_rule
from . import effects
from .base import lax_ops, mapped_aval, moveaxis, register, zeros_like_aval
from .selection import select_n_p
from .structural import convert_element_type_p
from .vma_errors import branch_mismatch

__all__ = ["cond_p", "bind_cond", "cond", "switch", "stage_sub", "staged_once", "forwarded",
           "forward_operands"]

not_mapped = None


def _types_match(avals_a, avals_b):
    return len(avals_a) == len(avals_b) and all(
        a.shape == b.shape and a.dtype == b.dtype for a, b in zip(avals_a, avals_b))


def _fmt(avals):
    return "(" + ", ".join(a.str_short(True) for a in avals) + ")"


def _aval(x):
    return core.get_aval(x)


cond_p = core.new_primitive("cond", multiple_results=True, higher_order=True)


def bind_cond(index, branches, operands=(), branches_platforms=None):
    """The one place `cond` equations are made. `index`: an int32 scalar (clamped);
    `branches`: a list of (Jaxpr, consts) pairs, each branch's constvars bound to
    its consts, its invars to `operands`; `branches_platforms`: the platforms of each
    branch when the index is `platform_index`'s (JAX's param). -> the outputs."""
    closed, consts = core.join_consts(list(branches))
    return bind(cond_p, index, *consts, *operands, branches=tuple(closed),
                **_platforms(branches_platforms))


def _platforms(branches_platforms):
    """The optional `branches_platforms` param (`lax.platform_dependent`'s cond)."""
    return {} if branches_platforms is None else {"branches_platforms": branches_platforms}

# ---- abstract eval, impl, lowering ---------------------------------------------


def _cond_ae(index, *ops, branches, branches_platforms=None):
    if index.shape != () or index.dtype != dtypes.int32:
        raise DTypeError(f"cond index must be an int32 scalar, got {index.str_short(True)}")
    outs = branches[0].out_avals
    for br in branches:
        if not _types_match(br.in_avals, ops):
            raise ShapeError(f"cond branch takes {_fmt(br.in_avals)}, operands are {_fmt(ops)}")
        if not _types_match(br.out_avals, outs):
            raise ShapeError(f"cond branches return different types: {_fmt(outs)} and "
                             f"{_fmt(br.out_avals)}")
    return list(outs)  # branch 0's types, weak flags included (JAX's rule)


def _cond_impl(index, *ops, branches, branches_platforms=None):
    i = int(np.clip(int(index), 0, len(branches) - 1))
    return core.eval_closed(branches[i], *ops)


def _cond_lowering(ctx, index, *ops, branches, branches_platforms=None):
    effs = effects.threaded(ctx, *branches)   # (their ordered effects' tokens: first)

    def branch(br):
        outs = ctx.lower_jaxpr(br.jaxpr, [], list(ops))
        return effects.current(ctx, effs) + outs
    regions = [ctx.region([], lambda br=br: branch(br)) for br in branches]
    outs = ctx.op("stablehlo.case", [index], effects.token_avals(effs) + list(ctx.avals_out),
                  regions=regions)
    effects.advance(ctx, effs, outs[:len(effs)])
    return outs[len(effs):]

# ---- autodiff ----------------------------------------------------------------------


def _cond_jvp(tx, primals, tangents, *, branches, branches_platforms=None):
    index, *ops = primals
    ts = tangents[1:]
    nz = [not isinstance(t, core.Zero) for t in ts]
    n_out = len(branches[0].out_avals)
    out_nz = [False] * n_out
    for br in branches:
        _, o = tx.jvp_jaxpr(br, nz, instantiate=False)
        out_nz = [a or b for a, b in zip(out_nz, o)]
    jvps = [tx.jvp_jaxpr(br, nz, instantiate=out_nz)[0] for br in branches]
    closed, consts = core.join_consts([(c.jaxpr, c.consts) for c in jvps])
    # join_consts puts consts first: branches take (consts, ops, tangents)
    nz_ts = [t for t in ts if not isinstance(t, core.Zero)]
    outs = bind(cond_p, index, *consts, *ops, *nz_ts, branches=tuple(closed),
                **_platforms(branches_platforms))
    primal_out = outs[:n_out]
    it = iter(outs[n_out:])
    tout = [next(it) if o else core.Zero(a) for o, a in zip(out_nz, branches[0].out_avals)]
    return primal_out, tout


def _cond_partial_eval(tx, eqn, in_uk):
    branches = eqn.params["branches"]
    if in_uk[0]:
        return [], [eqn], [True] * len(eqn.outvars)
    ops_uk = in_uk[1:]
    out_uk = [False] * len(eqn.outvars)
    for br in branches:
        _, _, o, _ = tx.partial_eval_jaxpr(br, ops_uk, instantiate=False)
        out_uk = [a or b for a, b in zip(out_uk, o)]
    splits = [tx.partial_eval_jaxpr(br, ops_uk, instantiate=out_uk) for br in branches]
    res_avals = [[v.aval for v in k.jaxpr.outvars[len(k.jaxpr.outvars) - nres:]]
                 for k, _, _, nres in splits]
    n_known_out = sum(1 for u in out_uk if not u)
    known_ops = [a for a, u in zip(eqn.invars[1:], ops_uk) if not u]
    uk_ops = [a for a, u in zip(eqn.invars[1:], ops_uk) if u]
    k_avals = [a.aval for a in known_ops]

    def known_branch(i):
        k, _, _, nres = splits[i]

        def fn(*args):
            outs = tx.inline(k, args)
            res = outs[len(outs) - nres:]
            out = list(outs[:n_known_out])
            from .untyped_made import staging_untyped   # (a later family)
            for j, avs in enumerate(res_avals):
                if j == i:
                    out += res
                    continue
                with staging_untyped():   # another branch's residual slots: typed as the
                    out += [zeros_like_aval(a) for a in avs]   # residuals they stand for
            return out
        return core.stage(fn, k_avals)

    all_res = [a for avs in res_avals for a in avs]
    uk_avals = [a.aval for a in uk_ops]

    def unknown_branch(i):
        _, u, _, nres = splits[i]
        off = sum(len(r) for r in res_avals[:i])

        def fn(*args):
            res = list(args[off:off + nres])
            return tx.inline(u, res + list(args[len(all_res):]))
        return core.stage(fn, all_res + uk_avals)

    kb, kconsts = core.join_consts([(c.jaxpr, c.consts)
                                    for c in map(known_branch, range(len(branches)))])
    ub, uconsts = core.join_consts([(c.jaxpr, c.consts)
                                    for c in map(unknown_branch, range(len(branches)))])
    if kconsts or uconsts:
        return [], [eqn], [True] * len(eqn.outvars)  # not expected: branches are const-free
    res_vars = [Var(a) for a in all_res]
    known_out = [v for v, u in zip(eqn.outvars, out_uk) if not u]
    k_eqn = Eqn(cond_p, [eqn.invars[0]] + known_ops, known_out + res_vars,
                dict(eqn.params, branches=tuple(kb)), eqn.source_info)
    uk_out = [v for v, u in zip(eqn.outvars, out_uk) if u]
    u_eqn = Eqn(cond_p, [eqn.invars[0]] + res_vars + uk_ops, uk_out,
                dict(eqn.params, branches=tuple(ub)), eqn.source_info)
    return [k_eqn], [u_eqn] if uk_out else [], out_uk


def _cond_transpose(tx, cts, index, *ops, branches, branches_platforms=None):
    if core.is_undefined(index):
        raise AssertionError("cond is not linear in its index")
    lin = [core.is_undefined(o) for o in ops]
    zero_cts = [isinstance(c, core.Zero) for c in cts]
    if all(zero_cts):
        return [None] * (1 + len(ops))
    bts = [tx.transpose_jaxpr(br, lin, zero_cts) for br in branches]
    closed, consts = core.join_consts([(c.jaxpr, c.consts) for c in bts])
    nl = [o for o in ops if not core.is_undefined(o)]
    outs = bind(cond_p, index, *consts, *nl, *[c for c in cts if not isinstance(c, core.Zero)],
                branches=tuple(closed), **_platforms(branches_platforms))
    it = iter(outs)
    return [None] + [next(it) if l else None for l in lin]

# ---- vmap --------------------------------------------------------------------------


def _i32(v):
    return np.int32(v)


def _select_n(which, *cases):
    return bind(select_n_p, which, *cases)


def _lane_select(mask, new, old):
    """select(mask, new, old) with a (B,) mask and (B, ...) operands (batch at 0)."""
    lax = lax_ops()
    a = core.get_aval(new)
    m = mask if a.ndim == 1 else lax.broadcast_in_dim(mask, a.shape, (0,))
    return _select_n(m, old, new)


def _first_lane(mask, size):
    """The lowest lane where mask holds (0 if none), as an int32 scalar."""
    lax = lax_ops()
    iota = lax.iota(dtypes.int32, size)
    big = lax.full((size,), size, dtypes.int32)
    first = lax.reduce_min(_select_n(mask, big, iota), (0,))
    return lax.min(first, _i32(size - 1))


def _take_lane(x, r):
    """Lane r of x (batch at 0), broadcast back to the whole batch."""
    lax = lax_ops()
    a = core.get_aval(x)
    zeros = [_i32(0)] * (a.ndim - 1)
    # an empty batch (vmap over 0 lanes) has no lane to read: slice nothing
    row = lax.dynamic_slice(x, [r] + zeros, (min(a.shape[0], 1),) + a.shape[1:],
                            allow_negative_indices=False)
    return lax.broadcast_in_dim(row, a.shape, tuple(range(a.ndim)))


def _safe_operand(x, mask, r):
    """Lanes where mask is false read lane r's value instead."""
    return _lane_select(mask, x, _take_lane(x, r))


def _any(mask):
    return lax_ops().reduce_or(mask, (0,))


def _zeros(aval):
    return lax_ops().full(aval.shape, np.zeros((), aval.dtype)[()], aval.dtype)


def io_effects(jaxprs) -> set:
    """Which IO effects (`io_callback`s) `jaxprs` or their sub-jaxprs hold: a subset of
    {"io", "ordered"}. JAX's batching of `cond` and `while` refuses some of them."""
    from .callbacks import io_callback_p   # a later family
    return {"ordered" if e.params.get("ordered") else "io"
            for j in jaxprs for e in core.all_eqns(j) if e.primitive is io_callback_p}


def _cond_batch(tx, args, dims, *, branches, branches_platforms=None):
    if io_effects(branches):   # JAX: whether or not the predicate is batched
        raise NotImplementedInAstjaxError("IO effect not supported in vmap-of-cond.",
                                          hint="call the io_callback outside the cond")
    lax = lax_ops()
    index, ops = args[0], list(args[1:])
    idx_dim, op_dims = dims[0], list(dims[1:])
    frame = core.axis_frame()
    size, name = frame.size, frame.name
    if idx_dim is not_mapped:
        mapped = [False] * len(branches[0].out_avals)
        for br in branches:
            m = tx.mapped_outputs(br, op_dims, size, name)
            mapped = [a or b for a, b in zip(mapped, m)]
        staged = [tx.batch_subjaxpr(br, op_dims, size, name, force_out=mapped) for br in branches]
        closed, consts = core.join_consts(
            [(core.Jaxpr(s[0].jaxpr.invars[:len(s[1])], s[0].jaxpr.invars[len(s[1]):],
                         s[0].jaxpr.outvars, s[0].jaxpr.eqns), s[1]) for s in staged])
        outs = bind(cond_p, index, *consts, *ops, branches=tuple(closed),
                    **_platforms(branches_platforms))
        return outs, [0 if m else not_mapped for m in mapped]
    # mapped predicate: select of all branches, on safe operands
    index = moveaxis(index, idx_dim, 0)
    nb = len(branches)
    index = lax.clamp(_i32(0), index, _i32(nb - 1))
    ops_front = [x if d is not_mapped else moveaxis(x, d, 0) for x, d in zip(ops, op_dims)]
    front_dims = [not_mapped if d is not_mapped else 0 for d in op_dims]
    outs_per_branch = []
    out_avals = branches[0].out_avals
    for k, br in enumerate(branches):
        takes = lax.eq(index, _i32(k))
        effects = any(core.has_effects(e) for e in br.jaxpr.eqns)
        if size and not effects:
            r = _first_lane(takes, size)
            safe = [x if d is not_mapped else _safe_operand(x, takes, r)
                    for x, d in zip(ops_front, front_dims)]
        elif effects:
            # JAX's operands for a branch with effects: each lane's own value, the lanes
            # not taking the branch through stop_gradient -- values of their own, so the
            # branches' callbacks are not merged into one program order
            safe = [x if d is not_mapped else _select_n(
                takes if core.get_aval(x).ndim == 1 else lax.broadcast_in_dim(
                    takes, core.get_aval(x).shape, (0,)), lax.stop_gradient(x), x)
                for x, d in zip(ops_front, front_dims)]
        else:  # an empty batch: no lane to read instead
            safe = list(ops_front)
        body, consts, _ = tx.batch_subjaxpr(br, front_dims, size, name,
                                            force_out=[True] * len(out_avals))
        if effects:
            # JAX runs every branch on every lane's own operands: a debug print in a
            # branch shows each lane's value, whichever branch the lane takes
            outs_per_branch.append(core.inline_jaxpr(body.jaxpr, body.consts,
                                                     list(consts) + safe))
            continue
        zero_avals = [mapped_aval(a, 0, size) for a in out_avals]
        n_in = len(consts) + len(safe)

        def zeros_fn(*_, zero_avals=zero_avals):
            return [_zeros(a) for a in zero_avals]
        skip = core.stage(zeros_fn, [core.get_aval(x) for x in consts + safe])
        skip = core.closure_convert(skip.jaxpr)
        if len(skip.jaxpr.invars) != n_in:
            raise AssertionError("unexpected consts in the skip branch")
        guard = lax.convert_element_type(_any(takes), dtypes.int32)
        outs_per_branch.append(bind(cond_p, guard, *consts, *safe, branches=(skip, body)))
    results = []
    for i, a in enumerate(out_avals):
        cases = [outs[i] for outs in outs_per_branch]
        shape = mapped_aval(a, 0, size).shape
        if nb == 2:
            which = lax.ne(index, _i32(0))
        else:
            which = index
        which_b = which if len(shape) == 1 else lax.broadcast_in_dim(which, shape, (0,))
        results.append(_select_n(which_b, *cases))
    return results, [0] * len(results)

# ---- dead-code elimination ---------------------------------------------------------


def _cond_dce(tx, eqn, used_outputs):
    branches = eqn.params["branches"]
    n_ops = len(eqn.invars) - 1
    used_in = [False] * n_ops
    pruned = [tx.dce_jaxpr(br.jaxpr, used_outputs) for br in branches]  # one pass each
    for _, u in pruned:
        used_in = [a or b for a, b in zip(used_in, u)]
    new_br = []
    for br, (j, _) in zip(branches, pruned):
        j = core.Jaxpr(j.constvars, [v for v, u in zip(j.invars, used_in) if u], j.outvars, j.eqns)
        new_br.append(core.ClosedJaxpr(j, br.consts))
    new = eqn.replace(invars=[eqn.invars[0]] + [a for a, u in zip(eqn.invars[1:], used_in) if u],
                      outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u],
                      params=dict(eqn.params, branches=tuple(new_br)))
    return new, [True] + used_in

# ---- printed source: if / elif / else ----------------------------------------------


@statement_rule
def _cond_source(gen, eqn, stmts):
    index, *ops = eqn.invars
    branches = eqn.params["branches"]
    outs = []
    for i, v in enumerate(eqn.outvars):
        computed = [b.jaxpr.outvars[i] for b in branches
                    if isinstance(b.jaxpr.outvars[i], core.Var)
                    and b.jaxpr.outvars[i] not in b.jaxpr.invars]
        base = gen.hint_from(v, *computed, *[b.jaxpr.outvars[i] for b in branches]) or "branch_out"
        outs.append(gen.out_name(v, base))
    blocks = [gen.branch_block(b, ops, outs, eqn.outvars) for b in branches]
    if len(branches) == 1:
        stmts.extend(blocks[0])
        return
    if index in gen.fused:
        pred = gen.fused.pop(index)
        test = gen.render_expr(pred[1]) if isinstance(pred, tuple) else gen.arg(pred)
        stmts.append(ast.If(test=test, body=blocks[1], orelse=blocks[0]))
        return
    n = len(branches)
    scope = gen.current()[0]
    p = scope.producer.get(index)
    if n == 2 and p is not None:
        conv = scope.jaxpr.eqns[p]
        if (conv.primitive is convert_element_type_p
                and conv.invars[0].aval.dtype == dtypes.bool_ and conv.invars[0].aval.shape == ()):
            stmts.append(ast.If(test=gen.arg(conv.invars[0]), body=blocks[1], orelse=blocks[0]))
            return
    idx = gen.arg(index)
    if n == 2:  # clamping: index <= 0 takes branch 0, index >= 1 branch 1
        stmts.append(ast.If(test=ast.Compare(left=idx, ops=[ast.GtE()], comparators=[pyconst(1)]),
                            body=blocks[1], orelse=blocks[0]))
        return
    # clamping semantics: index <= 0 -> branch 0, index >= n-1 -> the last branch
    orelse = blocks[-1]
    for k in range(n - 2, -1, -1):
        test = ast.Compare(left=copy.deepcopy(idx), ops=[ast.LtE() if k == 0 else ast.Eq()],
                           comparators=[pyconst(k)])
        orelse = [ast.If(test=test, body=blocks[k], orelse=orelse)]
    stmts.extend(orelse)


register(cond_p, impl=_cond_impl, abstract_eval=_cond_ae, lowering=_cond_lowering,
         jvp=_cond_jvp, partial_eval=_cond_partial_eval, transpose=_cond_transpose,
         batch=_cond_batch, dce=_cond_dce, source=_cond_source)

# ---- lax.cond, lax.switch ----------------------------------------------------------


def staged_once(owner, key, make):
    """`make()`, or what it returned for the same `owner` (by identity) and `key` while
    the current builder is open: JAX's cache of staged functions (`lax.cond`'s
    branches, an inner `jit` or `checkpoint`) within one program. The cache lives as
    long as the builder, as the staging may hold its values (or enclosing builders')
    among its consts (`Builder.staged`: a cache keyed weakly by the builder would
    never drop an entry, as those consts refer to the builder). Outside staging,
    `_staged_eagerly`; with an unhashable key, `make()`."""
    b = core.current_builder()
    full = (id(owner), key)
    try:
        hash(full)
    except TypeError:
        return make()
    if b is None:
        return _staged_eagerly(owner, key, make)
    cache = b.staged
    hit = cache.get(full)
    if hit is None or hit[0] is not owner:
        value, keep = _noted(make)
        if not keep:
            return value
        hit = cache[full] = (owner, value)
    return hit[1]


def _noted(make):
    """(`make()`, whether it may be reused): not a staging that read or wrote hijax
    Variables it closes over (their states change between stagings)."""
    if not hi_state.active():
        return make(), True
    with hi_state.noting() as note:
        value = make()
    return value, not note.touched


# owner -> {(key, context): staging}: what an eager `lax.scan` / `cond` / `while_loop`
# staged, kept while the function lives, as JAX's `trace_to_jaxpr` cache keyed weakly by
# the function (a body's Python side effects happen on its first call only)
_eager_staged: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _staged_eagerly(owner, key, make):
    """`make()` outside staging, cached per `owner` (held weakly; compared as a
    dictionary key compares it) and `key` in the current configuration, mesh and
    `compute_on` block (JAX's trace context). An owner that cannot be held weakly or
    hashed is staged each time. `config_api.clear_caches` empties the cache."""
    from .compute_on import program_key   # (a later family)
    try:
        context = (tuple(config.values.items()), sharding_impls.get_abstract_mesh(),
                   sharding_impls.context_mesh(), program_key())
        per_owner = _eager_staged.get(owner)
        if per_owner is None:
            per_owner = _eager_staged.setdefault(owner, {})
        full = (key, context)
        hit = per_owner.get(full)
    except TypeError:   # (unhashable or not weakly referable)
        return make()
    if hit is None:
        hit, keep = _noted(make)
        if keep:
            per_owner[full] = hit
    return hit


def clear_eager_stagings():
    """Forget every function staged outside staging (`jax.clear_caches`)."""
    _eager_staged.clear()


def stage_sub(fun, in_tree, in_avals, hints=None, args=None):
    """Stage `fun` on Tracers -> (Jaxpr, consts, out_tree) (`core.stage_callable`).

    As JAX caches the jaxpr of a control-flow function by (function, input tree,
    avals), one function object staged again on the same types while one builder is
    open (`lax.cond(p, f, f, x)`, `lax.switch(i, [f, f, g], x)`, two `cond`s or loops
    with the same `f` in one body) reuses the first staging (`staged_once`), so its
    Python side effects happen once. `args`: the values it is staged for (their varying
    manual axes are its arguments' inside a shard_map body, `vma.staging_inputs`)."""
    if args is not None:
        from .vma import staging_inputs   # (a later family)
        with staging_inputs(args):
            return stage_sub(fun, in_tree, in_avals, hints)
    key = ("sub", in_tree, tuple(in_avals), None if hints is None else tuple(hints))
    jaxpr, consts, out_tree = staged_once(
        fun, key, lambda: core.stage_callable(fun, in_tree, in_avals, hints))
    return jaxpr, list(consts), out_tree


def _match_weak(jaxpr: core.Jaxpr, target_avals):
    """Give each output the weak flag of its target (the types agree otherwise): a
    branch returning a strong f32 where branch 0 returns a weak one converts it."""
    outs = list(jaxpr.outvars)
    eqns = list(jaxpr.eqns)
    for i, (v, t) in enumerate(zip(outs, target_avals)):
        if v.aval.weak_type != t.weak_type and v.aval.dtype == t.dtype:
            nv = core.Var(v.aval.update(weak_type=t.weak_type))
            eqns.append(core.Eqn(convert_element_type_p, [v], [nv],
                                 dict(new_dtype=t.dtype, weak_type=t.weak_type)))
            outs[i] = nv
    return core.Jaxpr(jaxpr.constvars, jaxpr.invars, outs, eqns)


def promote_weak_carry(leaves, in_avals, out_avals):
    """JAX's weak-type promotion of a loop's initial carry: a weakly typed initial value
    (a Python scalar) whose dtype the body changes becomes a strong value of the two
    dtypes' promotion (`0` with a body returning `c + 0.5` starts as a float32). A
    change of the weak flag alone changes nothing: the body then runs on the weak carry
    and the loop returns the body's types. -> (new leaves, whether any changed); the
    caller re-stages the body when one did."""
    lax = lax_ops()
    out, changed = [], False
    for x, a, b in zip(leaves, in_avals, out_avals):
        if a.weak_type and a.shape == b.shape and a.dtype != b.dtype:
            dt, _ = dtypes.promote((a.dtype, True), (b.dtype, b.weak_type))
            x, changed = lax.convert_element_type(x, dt), True
        out.append(x)
    return out, changed


def _index_of(pred):
    av = _aval(pred)
    if av.shape != ():
        raise ShapeError(f"the predicate of cond must be a scalar, got shape {av.shape}",
                         hint="use jnp.where for elementwise selection")
    lax = lax_ops()
    if av.dtype == dtypes.bool_:
        return lax.convert_element_type(pred, dtypes.int32)
    return lax.convert_element_type(pred, dtypes.int32) if av.dtype != dtypes.int32 else pred


def switch(index, branches, *operands):
    """Apply `branches[index](*operands)`; the index is clamped, as in JAX. The branches
    are staged in index order (JAX traces them so: what they print comes in that order)."""
    return _switch(index, branches, operands, range(len(branches)))


def hi_carried(objs, fun):
    """`fun(*args)` as a staged-as-is function of `(*args, nodes)` -> `(its result,
    states)`: run with the mutable hi values `objs` (hijax Variables it closes over and
    writes) holding the states `nodes` (`hi_state.Lo`s), their final ones returned."""
    if isinstance(fun, core.RawFunction):
        target = fun.fn
    else:
        target = core.function_converter(fun) if core.function_converter is not None else fun

    def carried(*args):
        return hi_state.swapped_in(objs, args[-1], lambda: target(*args[:-1]))
    return core.raw(carried)


def _switch(index, branches, operands, order, branches_platforms=None):
    """`_switch_plain`; branches that write hijax Variables they close over return
    their states too, stored back after (JAX's effects of a cond)."""
    if not hi_state.active():
        return _switch_plain(index, branches, operands, order, branches_platforms)

    def lifted(objs):
        cap = hi_state.Lowering(list(objs))
        made = {}
        for b in branches:   # (one function given twice: one wrapper, staged once)
            if id(b) not in made:
                made[id(b)] = (lambda f: core.raw(lambda ops, nodes: f(*ops, nodes)))(
                    hi_carried(objs, b))
        out, states = _switch_plain(index, [made[id(b)] for b in branches],
                                    (tuple(operands), cap.tree), order, branches_platforms)
        cap.write_back(states)
        return out
    return hi_state.carrying(
        lambda: _switch_plain(index, branches, operands, order, branches_platforms), lifted)


def _switch_plain(index, branches, operands, order, branches_platforms=None):
    """`switch`, staging the branches in `order` (a permutation of their indices): the
    order in which Python code in them runs while staging. With `branches_platforms`
    (`lax.platform_dependent`: the index is `platform_index`'s, always in range) the
    index is not clamped and the cond carries them, as JAX's."""
    lax = lax_ops()
    leaves, in_tree = tree_util.flatten_for_staging(tuple(operands))
    avals = [_aval(x) for x in leaves]  # weak operands stay weak in the branches
    idx = _index_of(index)
    if len(branches) > 1 and _aval(index).dtype != dtypes.bool_ and branches_platforms is None:
        idx = lax.clamp(np.int32(0), idx, np.int32(len(branches) - 1))
    staged, first = [None] * len(branches), {}
    for i in order:   # one function given twice is staged once, as JAX traces it
        j = first.setdefault(id(branches[i]), i)
        staged[i] = staged[j] if j != i else stage_sub(branches[i], in_tree, avals, args=leaves)
    cond_ = order == (1, 0)
    names = ["false_fun", "true_fun"] if cond_ else \
        ["branch 0"] + [f"branch{k}" for k in range(1, len(branches))]
    for k in ([0] if cond_ else range(1, len(branches))):   # JAX's order: true vs false,
        ref = order[0]                                       # branch 0 vs the others
        branch_mismatch("cond" if cond_ else "switch", [names[ref], names[k]],
                        [branches[ref], branches[k]], [staged[ref][2], staged[k][2]],
                        [[v.aval for v in staged[i][0].outvars] for i in (ref, k)])
    out_tree = staged[0][2]
    out_avals = [v.aval for v in staged[0][0].outvars]
    if len(branches) > 1:   # (JAX compares true_fun with false_fun, branch 0 with the rest)
        from .vma import check_branches   # (a later family)
        perm = (1, 0) if cond_ else range(len(branches))
        check_branches([staged[k][:2] for k in perm], leaves, [branches[k] for k in perm],
                       ["true_fun", "false_fun"] if cond_ else ["branch 0"] + [
                           f"branch{k}" for k in range(1, len(branches))], out_tree)
    staged = [(_match_weak(j, out_avals), c) for j, c, _ in staged]  # branch 0's types
    fwd = {o: i for o, i in enumerate(forwarded(staged[0][0]))
           if i is not None and all(forwarded(j)[o] == i for j, _ in staged[1:])}
    # an operand every branch returns unchanged is no output of the cond, as JAX prunes
    # it: it stays the operand (unbatched under `vmap` when only the predicate is)
    if fwd:
        staged = [(core.Jaxpr(j.constvars, j.invars, [v for o, v in enumerate(j.outvars)
                                                      if o not in fwd], j.eqns), c)
                  for j, c in staged]
    outs = iter(bind_cond(idx, staged, leaves, branches_platforms))
    outs = [_as_array(leaves[fwd[o]], a) if o in fwd else next(outs)
            for o, a in enumerate(out_avals)]
    out = tree_util.tree_unflatten(out_tree, outs)
    if core.current_builder() is None:
        out = forward_operands(tuple(operands), out, fwd)
    return out


def _as_array(x, aval):
    """An operand `cond` returns unchanged, as an array (JAX's `lax.asarray`): a Python
    or NumPy scalar becomes one of `aval`'s type."""
    if isinstance(x, (core.Tracer, core.Array)):
        return x
    return bind(convert_element_type_p, np.asarray(x, aval.dtype), new_dtype=aval.dtype,
                weak_type=aval.weak_type)


def forwarded(jaxpr):
    """Per output of `jaxpr`: the index of the input it returns unchanged, or None."""
    pos = {v: i for i, v in enumerate(jaxpr.invars)}
    return [pos.get(v) if isinstance(v, Var) else None for v in jaxpr.outvars]


def forward_operands(operands, result, fwd, every_leaf=False):
    """An eager `cond` / `scan` / `while_loop` result that the function returns
    unchanged is the operand itself, as JAX's API functions forward it: in `result`,
    each leaf with a physical form (a typed key array) at staging position
    `o` in `fwd` is replaced by the operand leaf at staging position `fwd[o]` -- the
    same key array, so the key-reuse checker sees one key, consumed once.
    `every_leaf`: any leaf staged as one value is forwarded (JAX's `while_loop` returns
    the initial value itself: a Python scalar stays one)."""
    if not fwd:
        return result
    src = {pos: leaf for leaf, pos in _slots(operands, every_leaf) if pos is not None}
    leaves, tree = tree_util.tree_flatten(result)
    for j, (_, pos) in enumerate(_slots(result, every_leaf)):
        i = fwd.get(pos) if pos is not None else None
        if i in src:
            leaves[j] = src[i]
    return tree_util.tree_unflatten(tree, leaves)


def _slots(tree, every_leaf):
    """(leaf, staging position or None) per pytree leaf of `tree`: the position of a
    leaf staged as one value that has a physical form (a typed key array), or of any
    such leaf with `every_leaf`."""
    out, k = [], 0
    for leaf in tree_util.tree_leaves(tree):
        n = len(tree_util.staging_leaves(leaf))
        one = n == 1 and (every_leaf or tree_util.is_staging_leaf_type(type(leaf)))
        out.append((leaf, k if one else None))
        k += n
    return out


_NO_OPERAND = object()


def cond(pred, true_fun, false_fun, *operands, operand=_NO_OPERAND):
    """JAX's `lax.cond`: branches=(false_fun, true_fun) indexed by the predicate, staged
    `true_fun` first as JAX traces them (a `print` in both branches shows the true one's
    first). The legacy keyword `operand=x` means one positional operand `x`."""
    if operand is not _NO_OPERAND:
        if operands:
            raise TypeError("if `operand` is passed as a keyword, no other operands may be "
                            f"passed positionally; got {len(operands)} positional operands")
        operands = (operand,)
    return _switch(pred, (false_fun, true_fun), operands, (1, 0))
