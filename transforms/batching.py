"""`vmap` as an IR -> IR pass: batch a jaxpr equation by equation.

`batch_jaxpr(closed, in_dims, axis_size, axis_name, args)` interprets a per-example
jaxpr inside the *current* builder. Every value is a pair (value, batch dim): the
batch dim is an int (where the mapped axis of size `axis_size` sits in that value)
or `not_mapped` (None: the value is the same for every lane and carries no batch
axis). An equation whose inputs are all unmapped is re-staged as it is; otherwise
its primitive's batch rule runs:

    rule(args, dims, **params) -> (out, out_dim)     (lists for multiple results)

Rules are written with `lax` functions / `core.bind` on Tracers, so they stage IR
into the current builder; each equation is staged under its own `source_info` with
`phase='batched'`, so errors and generated source still point at the user's line.
Rules for ordinary primitives live in `batching_rules`; the ones below handle the
structured control flow, whose schemes are:

cond (`cond[branches] index *ops`)
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
while (`while[cond_jaxpr body_jaxpr ...] *cc *bc *carry`)
    * the carry's mapped-ness is found by a fixpoint (a carry the body maps becomes
      mapped, at 0, from the start).
    * unmapped predicate: the loop is batched as is.
    * mapped predicate: every carry is mapped; the loop runs while *any* lane's
      predicate holds; in each iteration the body runs for the whole batch and the
      carry of lanes whose predicate is false is frozen (`select(active, new,
      old)`). As for cond, finished lanes feed the body the carry of an active lane
      (the lowest), so the extra iterations of a finished lane cannot create NaN/inf
      that reach values or gradients.
scan (`scan[jaxpr ...] *consts *carry *xs`)
    * mapped xs are moved to batch dim 1 (the scan axis stays 0), so the body sees
      them at dim 0; consts keep their dims; the carry's mapped-ness is found by a
      fixpoint (forced to 0 when the body maps it); mapped ys come out at dim 1.

Named axes: while interpreting, the axis (name, size) is on a stack that the
collective primitives' batch rules read (`axis_frame()`), see
`astjax.primitives.collectives`. Collectives are batched even when their operands
are unmapped (`psum` of an unmapped x is `x * axis_size`, `axis_index` is an iota).
"""
from __future__ import annotations

import types

import numpy as np

from astjax import core, dtypes
from astjax.core import Literal, ShapedArray, bind
from astjax.errors import ShapeError

not_mapped = None

# Primitives whose batch rule runs even when no operand is mapped (collectives).
always_batch = core.always_batch

# ------------------------------------------------------------------ axis frames


AxisFrame, axis_frame, axis_size = core.AxisFrame, core.axis_frame, core.axis_size
_frame = core.extend_axis_env

# ----------------------------------------------------------------- axis helpers


from astjax.primitives.base import (bdim_at_front, broadcast_batch, mapped_aval,  # noqa: E402
                                    matchaxis, moveaxis, shift_axis, unmapped_aval)


def ndim(x):
    return core.get_aval(x).ndim


# ------------------------------------------------------------------ interpreter


def _read_literal(lit: Literal):
    if lit.aval.weak_type and lit.aval.ndim == 0:
        return core.WeakConst(np.asarray(lit.val, lit.aval.dtype))
    return np.asarray(lit.val, lit.aval.dtype)[()] if lit.aval.ndim == 0 else lit.val


def batch_jaxpr(closed, in_dims, axis_size, axis_name, args):
    """Stage the batched version of `closed` into the current builder.

    `args` are the (batched) values of the jaxpr's invars, `in_dims` their batch
    dims (None: unmapped). Consts of `closed` are unmapped. Returns
    (outs, out_dims)."""
    if isinstance(closed, core.Jaxpr):
        closed = core.ClosedJaxpr(closed, [])
    jaxpr = closed.jaxpr
    env: dict = {}

    def read(a):
        if isinstance(a, Literal):
            return _read_literal(a), not_mapped
        return env[a]

    for v, c in zip(jaxpr.constvars, closed.consts):
        env[v] = (c, not_mapped)
    for v, x, d in zip(jaxpr.invars, args, in_dims):
        env[v] = (x, d)
    with _frame(axis_name, axis_size):
        for eqn in jaxpr.eqns:
            ins = [read(a) for a in eqn.invars]
            vals = [x for x, _ in ins]
            dims = [d for _, d in ins]
            prim = eqn.primitive
            with core.source_info_context(eqn.source_info.replace(phase="batched")):
                if all(d is not_mapped for d in dims) and prim not in always_batch:
                    outs = bind(prim, *vals, **eqn.params)
                    out_dims = ([not_mapped] * len(eqn.outvars) if prim.multiple_results
                                else not_mapped)
                else:
                    rule = core.rule(prim, "batch", eqn.source_info, tx=tx)
                    outs, out_dims = rule(vals, dims, **eqn.params)
            if prim.multiple_results:
                for v, x, d in zip(eqn.outvars, outs, out_dims):
                    env[v] = (x, d)
            else:
                env[eqn.outvars[0]] = (outs, out_dims)
        results = [read(a) for a in jaxpr.outvars]
    return [x for x, _ in results], [d for _, d in results]


def batch_subjaxpr(closed, in_dims, axis_size, axis_name, force_out=None, out_front=True):
    """Batch a nested jaxpr into a new closed jaxpr without consts.

    `in_dims`: batch dim of each invar (mapped invars get the batch axis inserted
    there). `force_out[i]` True: output i is made mapped. Mapped outputs are moved
    to dim 0 (`out_front`). Returns (ClosedJaxpr, consts, out_mapped) where the
    consts, values of the enclosing builder that the batched body captured, become
    leading invars of the returned jaxpr (pass them as extra operands)."""
    in_avals = [mapped_aval(a, d, axis_size) for a, d in zip(closed.in_avals, in_dims)]
    out_mapped = [None]

    def body(*args):
        outs, dims = batch_jaxpr(closed, in_dims, axis_size, axis_name, list(args))
        res, mapped = [], []
        for i, (x, d) in enumerate(zip(outs, dims)):
            force = bool(force_out[i]) if force_out is not None else False
            if d is not_mapped and force:
                with _frame(axis_name, axis_size):
                    x, d = broadcast_batch(x, axis_size, 0), 0
            elif d is not not_mapped and out_front:
                with _frame(axis_name, axis_size):
                    x, d = moveaxis(x, d, 0), 0
            res.append(x)
            mapped.append(d is not not_mapped)
        out_mapped[0] = mapped
        return res

    cj = core.stage(body, in_avals)
    jaxpr = cj.jaxpr
    conv = core.ClosedJaxpr(core.Jaxpr([], jaxpr.constvars + jaxpr.invars, jaxpr.outvars,
                                       jaxpr.eqns), [])
    return conv, list(cj.consts), out_mapped[0]


def batch_closed(closed, in_dims, axis_size, axis_name, force_out=None):
    """Like `batch_subjaxpr`, for callers that take a ClosedJaxpr with consts."""
    conv, consts, mapped = batch_subjaxpr(closed, in_dims, axis_size, axis_name, force_out)
    jaxpr = conv.jaxpr
    n = len(consts)
    return core.ClosedJaxpr(core.Jaxpr(jaxpr.invars[:n], jaxpr.invars[n:], jaxpr.outvars,
                                       jaxpr.eqns), consts), mapped


_mapped_cache: dict = {}


def mapped_outputs(closed, in_dims, axis_size, axis_name):
    """Which outputs of `closed` are mapped for these input dims (stages a throwaway
    copy; cached, so that fixpoints over nested loops stay linear in the depth)."""
    key = (id(closed), tuple(in_dims), axis_size, axis_name)
    hit = _mapped_cache.get(key)
    if hit is not None and hit[0] is closed:
        return list(hit[1])
    _, _, mapped = batch_subjaxpr(closed, in_dims, axis_size, axis_name)
    if len(_mapped_cache) > 256:
        _mapped_cache.clear()
    _mapped_cache[key] = (closed, tuple(mapped))
    return mapped

# ----------------------------------------------------------------- control flow


def _i32(v):
    return np.int32(v)


def _lane_select(mask, new, old):
    """select(mask, new, old) with a (B,) mask and (B, ...) operands (batch at 0)."""
    from astjax import lax
    a = core.get_aval(new)
    m = mask if a.ndim == 1 else lax.broadcast_in_dim(mask, a.shape, (0,))
    return bind(core.primitives["select_n"], m, old, new)


def _first_lane(mask, size):
    """The lowest lane where mask holds (0 if none), as an int32 scalar."""
    from astjax import lax
    iota = lax.iota(dtypes.int32, size)
    big = lax.full((size,), size, dtypes.int32)
    first = lax.reduce_min(bind(core.primitives["select_n"], mask, big, iota), (0,))
    return lax.min(first, _i32(size - 1))


def _take_lane(x, r):
    """Lane r of x (batch at 0), broadcast back to the whole batch."""
    from astjax import lax
    a = core.get_aval(x)
    zeros = [_i32(0)] * (a.ndim - 1)
    row = lax.dynamic_slice(x, [r] + zeros, (1,) + a.shape[1:])
    return lax.broadcast_in_dim(row, a.shape, tuple(range(a.ndim)))


def _safe_operand(x, mask, r):
    """Lanes where mask is false read lane r's value instead."""
    return _lane_select(mask, x, _take_lane(x, r))


def _any(mask):
    from astjax import lax
    return lax.reduce_or(mask, (0,))


def _zeros(aval):
    from astjax import lax
    return lax.full(aval.shape, np.zeros((), aval.dtype)[()], aval.dtype)


def _cond_batch(args, dims, *, branches):
    from astjax.primitives.control import cond_p
    from astjax import lax
    index, ops = args[0], list(args[1:])
    idx_dim, op_dims = dims[0], list(dims[1:])
    frame = axis_frame()
    size, name = frame.size, frame.name
    if idx_dim is not_mapped:
        mapped = [False] * len(branches[0].out_avals)
        for br in branches:
            m = mapped_outputs(br, op_dims, size, name)
            mapped = [a or b for a, b in zip(mapped, m)]
        staged = [batch_subjaxpr(br, op_dims, size, name, force_out=mapped) for br in branches]
        from astjax.lax_control import join_consts
        closed, consts = join_consts([(core.Jaxpr(s[0].jaxpr.invars[:len(s[1])], s[0].jaxpr.invars[len(s[1]):],
                                                  s[0].jaxpr.outvars, s[0].jaxpr.eqns), s[1])
                                      for s in staged])
        outs = bind(cond_p, index, *consts, *ops, branches=tuple(closed))
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
        r = _first_lane(takes, size)
        safe = [x if d is not_mapped else _safe_operand(x, takes, r)
                for x, d in zip(ops_front, front_dims)]
        body, consts, _ = batch_subjaxpr(br, front_dims, size, name,
                                         force_out=[True] * len(out_avals))
        zero_avals = [mapped_aval(a, 0, size) for a in out_avals]
        n_in = len(consts) + len(safe)

        def zeros_fn(*_, zero_avals=zero_avals):
            return [_zeros(a) for a in zero_avals]
        skip = core.stage(zeros_fn, [core.get_aval(x) for x in consts + safe])
        skip = core.ClosedJaxpr(core.Jaxpr([], skip.jaxpr.constvars + skip.jaxpr.invars,
                                           skip.jaxpr.outvars, skip.jaxpr.eqns), [])
        if skip.consts or len(skip.jaxpr.invars) != n_in:
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
        results.append(bind(core.primitives["select_n"], which_b, *cases))
    return results, [0] * len(results)


def _while_batch(args, dims, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    from astjax.primitives.control import while_p
    from astjax import lax
    frame = axis_frame()
    size, name = frame.size, frame.name
    nc, nb = cond_nconsts, body_nconsts
    cc, bc, carry = list(args[:nc]), list(args[nc:nc + nb]), list(args[nc + nb:])
    cc_d, bc_d, carry_d = list(dims[:nc]), list(dims[nc:nc + nb]), list(dims[nc + nb:])
    mapped = [d is not not_mapped for d in carry_d]
    while True:  # fixpoint: carries the body maps are mapped
        in_d = bc_d + [0 if m else not_mapped for m in mapped]
        out_m = mapped_outputs(body_jaxpr, in_d, size, name)
        new = [a or b for a, b in zip(mapped, out_m)]
        if new == mapped:
            break
        mapped = new
    pred_mapped = mapped_outputs(cond_jaxpr, cc_d + [0 if m else not_mapped for m in mapped],
                                 size, name)[0]
    if pred_mapped:
        mapped = [True] * len(carry)
    carry = [x if not m else matchaxis(x, d, 0, size) for x, d, m in zip(carry, carry_d, mapped)]
    k_d = [0 if m else not_mapped for m in mapped]
    cond_b, cond_c, _ = batch_subjaxpr(cond_jaxpr, cc_d + k_d, size, name)
    body_b, body_c, _ = batch_subjaxpr(body_jaxpr, bc_d + k_d, size, name, force_out=mapped)
    if not pred_mapped:
        outs = bind(while_p, *cond_c, *cc, *body_c, *bc, *carry,
                    cond_jaxpr=cond_b, body_jaxpr=body_b,
                    cond_nconsts=len(cond_c) + nc, body_nconsts=len(body_c) + nb)
        return outs, k_d
    # mapped predicate: masked loop
    ncc, nbc = len(cond_c) + nc, len(body_c) + nb
    cc_all, bc_all = cond_c + cc, body_c + bc
    n_carry = len(carry)

    def new_cond(*xs):
        c_args, ks = xs[:ncc], xs[ncc:]
        pred = core.inline_jaxpr(cond_b.jaxpr, [], list(c_args) + list(ks))[0]
        return [_any(pred)]

    def new_body(*xs):
        c_args, b_args, ks = xs[:ncc], xs[ncc:ncc + nbc], list(xs[ncc + nbc:])
        pred = core.inline_jaxpr(cond_b.jaxpr, [], list(c_args) + ks)[0]
        r = _first_lane(pred, size)
        safe = [_safe_operand(k, pred, r) for k in ks]
        new = core.inline_jaxpr(body_b.jaxpr, [], list(b_args) + safe)
        return [_lane_select(pred, n, k) for n, k in zip(new, ks)]

    carry_avals = [core.get_aval(x) for x in carry]
    with _frame(name, size):
        cj = core.stage(new_cond, [core.get_aval(x) for x in cc_all] + carry_avals)
        bj = core.stage(new_body, [core.get_aval(x) for x in cc_all + bc_all] + carry_avals)
    cj_c, bj_c = list(cj.consts), list(bj.consts)
    cond_new = core.ClosedJaxpr(core.Jaxpr([], cj.jaxpr.constvars + cj.jaxpr.invars,
                                           cj.jaxpr.outvars, cj.jaxpr.eqns), [])
    body_new = core.ClosedJaxpr(core.Jaxpr([], bj.jaxpr.constvars + bj.jaxpr.invars,
                                           bj.jaxpr.outvars, bj.jaxpr.eqns), [])
    outs = bind(while_p, *cj_c, *cc_all, *bj_c, *cc_all, *bc_all, *carry,
                cond_jaxpr=cond_new, body_jaxpr=body_new,
                cond_nconsts=len(cj_c) + ncc, body_nconsts=len(bj_c) + ncc + nbc)
    assert len(outs) == n_carry
    return outs, [0] * n_carry


def _scan_batch(args, dims, *, jaxpr, length, reverse, num_consts, num_carry, unroll=1):
    from astjax.primitives.control import scan_p
    frame = axis_frame()
    size, name = frame.size, frame.name
    consts = list(args[:num_consts])
    carry = list(args[num_consts:num_consts + num_carry])
    xs = list(args[num_consts + num_carry:])
    c_d = list(dims[:num_consts])
    k_d = list(dims[num_consts:num_consts + num_carry])
    x_d = list(dims[num_consts + num_carry:])
    xs = [x if d is not_mapped else moveaxis(x, d, 1) for x, d in zip(xs, x_d)]
    xb_d = [not_mapped if d is not_mapped else 0 for d in x_d]
    mapped = [d is not not_mapped for d in k_d]
    n_ys = len(jaxpr.out_avals) - num_carry
    while True:
        in_d = c_d + [0 if m else not_mapped for m in mapped] + xb_d
        out_m = mapped_outputs(jaxpr, in_d, size, name)
        new = [a or b for a, b in zip(mapped, out_m[:num_carry])]
        if new == mapped:
            break
        mapped = new
    carry = [x if not m else matchaxis(x, d, 0, size) for x, d, m in zip(carry, k_d, mapped)]
    in_d = c_d + [0 if m else not_mapped for m in mapped] + xb_d
    body, body_c, out_m = batch_subjaxpr(jaxpr, in_d, size, name,
                                         force_out=mapped + [False] * n_ys)
    outs = bind(scan_p, *body_c, *consts, *carry, *xs, jaxpr=body, length=length,
                reverse=reverse, num_consts=len(body_c) + num_consts, num_carry=num_carry,
                unroll=unroll)
    out_dims = [0 if m else not_mapped for m in mapped] + [
        1 if m else not_mapped for m in out_m[num_carry:]]
    return outs, out_dims


# What the rules of higher-order primitives receive as `tx` (see core.Primitive).
tx = types.SimpleNamespace(batch_jaxpr=batch_jaxpr, batch_subjaxpr=batch_subjaxpr,
                           mapped_outputs=mapped_outputs)


def _register_control():
    from astjax.primitives.control import cond_p, scan_p, while_p
    core.batch_rules[cond_p] = _cond_batch
    core.batch_rules[while_p] = _while_batch
    core.batch_rules[scan_p] = _scan_batch


_register_control()

from . import batching_rules  # noqa: E402,F401  (registers every other primitive's rule)
