"""`scan`: every rule of the structured loop over a leading axis, `bind_scan`, and
the public `lax.scan` / `lax.map`.

`scan[jaxpr length reverse num_consts num_carry unroll] *consts *carry *xs` ->
`stablehlo.while` over an index, with dynamic_slice / dynamic_update_slice (or
straight-line code when fully unrolled). The body is a ClosedJaxpr without consts.

jvp: the body's JVP, with a fixpoint on which carries have nonzero tangents.
partial eval: the body splits into known/unknown parts (fixpoint on unknown
carries); the known body's loop-invariant equations (reading only consts) move before
the loop, so a residual that is a const or computed from consts alone is passed to the
unknown scan as a const, one that is a known `xs` slice as those xs, and only the
rest are stacked as extra `ys` of the known scan. transpose: a scan in the opposite
direction over the stacked residuals and the output cotangents, the cotangents of
linear consts accumulating in the carry.

vmap: mapped xs are moved to batch dim 1 (the scan axis stays 0), so the body sees
them at dim 0; consts keep their dims; the carry's mapped-ness is found by a
fixpoint (forced to 0 when the body maps it); mapped ys come out at dim 1.

Printed source: `for i in range(n):` with carries as plain variables, `xs[i]` reads
and `ys.append(y)` + `jnp.stack(ys)`. The loop helpers of the printed source are
shared with `while_loop`.
"""
from __future__ import annotations

import ast

import numpy as np

from .. import core, dtypes, hi_state, tree_util
from ..core import Eqn, ShapedArray, Var, bind
from ..errors import ArgumentTypeError, ArgumentValueError, LoopCarryError, ShapeError, StructureError
from ..shape_poly import canonical_dim
from ..pyast import assign, attr, call, dtype_expr, load, pyconst, statement_rule, store
from ..util import split_list
from . import effects
from .vma_errors import carry_mismatch
from .base import add_tangents, instantiate, matchaxis, moveaxis, register, zeros_like_aval
from .cond import (_fmt, _types_match, forward_operands, forwarded, not_mapped,
                   hi_carried, promote_weak_carry, stage_sub)
from .structural import iota_p

__all__ = ["scan_p", "bind_scan", "scan", "scan_raw", "map"]

scan_p = core.new_primitive("scan", multiple_results=True, higher_order=True)


def bind_scan(body, init, xs, *, length, reverse=False, unroll=1):
    """The one place `scan` equations are made. `body`: a (Jaxpr, consts) pair whose
    constvars are bound to the consts and whose invars are the carry then one slice
    of each of `xs`; its outvars are the new carry then the ys. -> the carry outs
    followed by the stacked ys."""
    jaxpr, consts = body
    return bind(scan_p, *consts, *init, *xs, jaxpr=core.closure_convert(jaxpr),
                length=length, reverse=bool(reverse), num_consts=len(consts),
                num_carry=len(init), unroll=unroll)

# ---- abstract eval, impl, lowering ---------------------------------------------


def _scan_split(args, num_consts, num_carry):
    return (list(args[:num_consts]), list(args[num_consts:num_consts + num_carry]),
            list(args[num_consts + num_carry:]))


def _scan_ae(*args, jaxpr, length, reverse, num_consts, num_carry, unroll=1):
    consts, carry, xs = _scan_split(args, num_consts, num_carry)
    for x in xs:
        if not x.shape or x.shape[0] != length:
            raise ShapeError(f"scan input of shape {x.shape} does not have leading length {length}")
    x_slices = [ShapedArray(x.shape[1:], x.dtype, x.weak_type) for x in xs]
    if not _types_match(jaxpr.in_avals, consts + carry + x_slices):
        raise ShapeError(f"scan body takes {_fmt(jaxpr.in_avals)}, given "
                         f"{_fmt(consts + carry + x_slices)}")
    outs = jaxpr.out_avals
    if not _types_match(outs[:num_carry], carry):
        raise LoopCarryError(f"scan body returns carry {_fmt(outs[:num_carry])} for an initial "
                             f"carry of {_fmt(carry)}")
    ys = [ShapedArray((length,) + y.shape, y.dtype, y.weak_type) for y in outs[num_carry:]]
    return list(outs[:num_carry]) + ys  # the body's carry types, weak flags included (JAX)


def _scan_impl(*args, jaxpr, length, reverse, num_consts, num_carry, unroll=1):
    consts, carry, xs = _scan_split(args, num_consts, num_carry)
    ys = []
    order = range(length - 1, -1, -1) if reverse else range(length)
    for i in order:
        out = core.eval_closed(jaxpr, *consts, *carry, *[np.asarray(x)[i] for x in xs])
        carry, y = out[:num_carry], out[num_carry:]
        ys.append(y)
    if reverse:
        ys.reverse()
    y_avals = jaxpr.out_avals[num_carry:]
    stacked = [np.stack([np.asarray(y[k]) for y in ys]) if ys else
               np.zeros((0,) + a.shape, a.dtype) for k, a in enumerate(y_avals)]
    return list(carry) + [s.astype(a.dtype) for s, a in zip(stacked, y_avals)]


def _unroll_steps(length, unroll):
    """Steps per loop iteration: the largest divisor of `length` not above `unroll`."""
    k = max(1, min(int(unroll), length))
    while length % k:
        k -= 1
    return k


def _scan_lowering(ctx, *args, jaxpr, length, reverse, num_consts, num_carry, unroll=1):
    consts, carry, xs = _scan_split(args, num_consts, num_carry)
    c_av, k_av, x_av = _scan_split(ctx.avals_in, num_consts, num_carry)
    y_avals = ctx.avals_out[num_carry:]
    if length == 0:  # no iteration: the carry passes through, the ys are empty
        return list(carry) + [ctx.broadcast(ctx.constant(0, a.update(shape=())),
                                            a.update(shape=()), a) for a in y_avals]
    if unroll is True or (type(length) is int and int(unroll) >= length):
        return _scan_unrolled(ctx, consts, carry, xs, x_av, y_avals, jaxpr, length, reverse)
    i32 = ShapedArray((), dtypes.int32)
    zeros = [ctx.op1("stablehlo.broadcast_in_dim", [ctx.constant(0, a.update(shape=()))], a,
                     attrs={"broadcast_dimensions": ctx.i64([])}) for a in y_avals]
    effs = effects.threaded(ctx, jaxpr)   # (its ordered effects' tokens: carried first)
    nt = len(effs)
    state_avals = effects.token_avals(effs) + [i32] + c_av + k_av + x_av + list(y_avals)
    init = effects.current(ctx, effs) + [ctx.constant(0, i32)] + consts + carry + xs + zeros
    nc, nk, nx = len(consts), len(carry), len(xs)
    steps = _unroll_steps(length, unroll) if type(length) is int else 1   # (symbolic)

    def cond_body(*state):
        i = state[nt]
        lim = ctx.mb.dim_value(length)   # (a symbolic length: from the dimensions)
        return [ctx.mb.op("stablehlo.compare", [i, lim], [i32.update(dtype=dtypes.bool_)],
                          {"comparison_direction": "#stablehlo<comparison_direction LT>"})[0]]

    def step(i, cs, ks, xs_, ys):
        idx = ctx.mb.op("stablehlo.subtract", [ctx.mb.dim_value(length - 1), i], [i32])[0] \
            if reverse else i
        zero = ctx.constant(0, i32)
        x_slices = []
        for x, a in zip(xs_, x_av):
            sl = ctx.mb.op("stablehlo.dynamic_slice", [x, idx] + [zero] * (a.ndim - 1),
                           [a.update(shape=(1,) + a.shape[1:])],
                           {"slice_sizes": ctx.i64((1,) + a.shape[1:])})[0]
            x_slices.append(ctx.mb.op("stablehlo.reshape", [sl], [a.update(shape=a.shape[1:])])[0])
        out = ctx.lower_jaxpr(jaxpr.jaxpr, [], cs + ks + x_slices)
        new_k, y_slices = out[:nk], out[nk:]
        new_ys = []
        for y, ys_buf, a in zip(y_slices, ys, y_avals):
            y1 = ctx.mb.op("stablehlo.reshape", [y], [a.update(shape=(1,) + a.shape[1:])])[0]
            new_ys.append(ctx.mb.op("stablehlo.dynamic_update_slice",
                                    [ys_buf, y1, idx] + [zero] * (a.ndim - 1), [a])[0])
        i1 = ctx.mb.op("stablehlo.add", [i, ctx.constant(1, i32)], [i32])[0]
        return i1, new_k, new_ys

    def body_body(*state):
        effects.advance(ctx, effs, state[:nt])
        i, rest = state[nt], state[nt + 1:]
        cs = list(rest[:nc])
        ks = list(rest[nc:nc + nk])
        xs_ = list(rest[nc + nk:nc + nk + nx])
        ys = list(rest[nc + nk + nx:])
        for _ in range(steps):
            i, ks, ys = step(i, cs, ks, xs_, ys)
        return effects.current(ctx, effs) + [i] + cs + ks + xs_ + ys

    outs = ctx.op("stablehlo.while", init, out_avals=state_avals,
                  regions=[ctx.region(state_avals, cond_body), ctx.region(state_avals, body_body)])
    effects.advance(ctx, effs, outs[:nt])
    outs = outs[nt:]
    return outs[1 + nc:1 + nc + nk] + outs[1 + nc + nk + nx:]


def _scan_unrolled(ctx, consts, carry, xs, x_av, y_avals, jaxpr, length, reverse):
    """A fully unrolled scan: straight-line code XLA can fuse across steps."""
    ks, ys = list(carry), [[] for _ in y_avals]
    for t in (range(length - 1, -1, -1) if reverse else range(length)):
        x_slices = []
        for x, a in zip(xs, x_av):
            sl = ctx.op1("stablehlo.slice", [x], a.update(shape=(1,) + a.shape[1:]), attrs={
                "start_indices": ctx.i64([t] + [0] * (a.ndim - 1)),
                "limit_indices": ctx.i64([t + 1] + list(a.shape[1:])),
                "strides": ctx.i64([1] * a.ndim)})
            x_slices.append(ctx.op1("stablehlo.reshape", [sl], a.update(shape=a.shape[1:])))
        out = ctx.lower_jaxpr(jaxpr.jaxpr, [], list(consts) + ks + x_slices)
        ks = out[:len(carry)]
        for buf, y, a in zip(ys, out[len(carry):], y_avals):
            buf.append(ctx.op1("stablehlo.reshape", [y], a.update(shape=(1,) + a.shape[1:])))
    outs = []
    for buf, a in zip(ys, y_avals):
        if reverse:
            buf.reverse()
        outs.append(ctx.op1("stablehlo.concatenate", buf, a, attrs={"dimension": "0 : i64"})
                    if len(buf) > 1 else buf[0])
    return ks + outs

# ---- autodiff ----------------------------------------------------------------------


def _permute(cj: core.ClosedJaxpr, in_order, out_order):
    j = cj.jaxpr
    return core.ClosedJaxpr(core.Jaxpr(j.constvars, [j.invars[i] for i in in_order],
                                       [j.outvars[i] for i in out_order], j.eqns), cj.consts)


def _scan_jvp(tx, primals, tangents, *, jaxpr, length, reverse, num_consts, num_carry, unroll=1):
    nc, nk = num_consts, num_carry
    n_in = len(primals)
    ny = len(jaxpr.out_avals) - nk
    nz = [not isinstance(t, core.Zero) for t in tangents]
    nz_c, nz_k, nz_x = split_list(nz, nc, nk)
    nz_k = [a and core.differentiable(v.aval) for a, v in zip(nz_k, jaxpr.jaxpr.invars[nc:nc + nk])]
    while True:
        jv, out_nz = tx.jvp_jaxpr(jaxpr, nz_c + nz_k + nz_x, instantiate=nz_k + [False] * ny)
        new_k = [a or b for a, b in zip(nz_k, out_nz[:nk])]
        if new_k == nz_k:
            break
        nz_k = new_k
    nz_y = out_nz[nk:]
    # jv invars: c, k, x, ct, kt, xt ; outvars: k', y, kt', yt
    n_ct, n_kt, n_xt = sum(nz_c), sum(nz_k), sum(nz_x)
    base = n_in
    in_order = (list(range(nc)) + list(range(base, base + n_ct))
                + list(range(nc, nc + nk)) + list(range(base + n_ct, base + n_ct + n_kt))
                + list(range(nc + nk, n_in)) + list(range(base + n_ct + n_kt, base + n_ct + n_kt + n_xt)))
    n_yt = sum(nz_y)
    out_order = (list(range(nk)) + list(range(nk + ny, nk + ny + n_kt))
                 + list(range(nk, nk + ny)) + list(range(nk + ny + n_kt, nk + ny + n_kt + n_yt)))
    jv = _permute(jv, in_order, out_order)
    body, extra = core.split_consts(jv)
    consts, carry, xs = split_list(list(primals), nc, nk)
    tc, tk, tx_ = split_list(list(tangents), nc, nk)
    ct = [t for t in tc if not isinstance(t, core.Zero)]
    kt = [instantiate(t, v.aval) for t, v, z in zip(tk, jaxpr.jaxpr.invars[nc:nc + nk], nz_k) if z]
    xt = [t for t in tx_ if not isinstance(t, core.Zero)]
    outs = bind(scan_p, *extra, *consts, *ct, *carry, *kt, *xs, *xt, jaxpr=body, length=length,
                reverse=reverse, num_consts=len(extra) + nc + len(ct), num_carry=nk + len(kt),
                unroll=unroll)
    k_out, kt_out, y_out, yt_out = split_list(outs, nk, n_kt, ny)
    kt_it, yt_it = iter(kt_out), iter(yt_out)
    out_avals = [v.aval for v in jaxpr.jaxpr.outvars]
    t_k = [next(kt_it) if z else core.Zero(a) for z, a in zip(nz_k, out_avals[:nk])]
    t_y = [next(yt_it) if z else core.Zero(a.update(shape=(length,) + a.shape))
           for z, a in zip(nz_y, out_avals[nk:])]
    return k_out + y_out, t_k + t_y


def _invariant_split(j, inv, alias):
    """Split the equations of `j` into those computing the same value in every
    iteration -- effect-free, reading only `inv` values (the loop's consts and what is
    so computed: dependence flows forward, so one pass in program order is the
    fixpoint) -- and the rest; a `checkpoint` or `jit` call reading some invariant
    values is split the same way inside, its invariant part joining the hoisted
    equations. `alias`: a call body's invariant binder -> the value it is bound to.
    -> (hoisted equations, the rest, `j`'s outvars, invariant ones replaced by the
    hoisted values)."""
    from .custom_derivatives import body_of, checkpoint_p
    from .jit_call import jit_p, keep_operands
    sub, hoisted, kept = {}, [], []
    for e in j.eqns:
        ins = [sub.get(a, a) if isinstance(a, Var) else a for a in e.invars]
        known = [not isinstance(a, Var) or a in inv for a in ins]
        if not core.has_effects(e) and all(known):
            hoisted.append(e.replace(invars=[alias.get(a, a) if isinstance(a, Var) else a
                                             for a in ins]))
            inv.update(e.outvars)
            continue
        e = e.replace(invars=ins)
        if (core.has_effects(e) or not any(known) or e.primitive not in (checkpoint_p, jit_p)
                or body_of(e.params["jaxpr"]).consts):
            kept.append(e)
            continue
        body = body_of(e.params["jaxpr"]).jaxpr
        for b, a, k in zip(body.invars, ins, known):
            if k:
                alias[b] = alias.get(a, a)
                inv.add(b)
        h, kept_b, outs_b = _invariant_split(body, inv, alias)
        if not h:   # (the call as it is: its body stays shared)
            kept.append(e)
        else:
            hoisted += h
            made = {v for x in h for v in x.outvars}
            fresh = {a: Var(a.aval, a.hint) for a in [a for x in kept_b for a in x.invars]
                     + outs_b if isinstance(a, Var) and a in made}
            kept_b = [x.replace(invars=[fresh.get(a, a) if isinstance(a, Var) else a
                                        for a in x.invars]) for x in kept_b]
            nb = core.Jaxpr([], list(fresh.values()) + body.invars,
                            [fresh.get(a, a) if isinstance(a, Var) else a for a in outs_b],
                            kept_b)
            nb = core.ClosedJaxpr(nb, []) if e.primitive is jit_p else nb
            kept.append(e.replace(invars=list(fresh) + ins, params=keep_operands(
                dict(e.params, jaxpr=nb), [True] * len(ins), len(fresh))))
        for o, b in zip(e.outvars, outs_b):
            if not isinstance(b, Var) or b in inv:
                sub[o] = alias.get(b, b) if isinstance(b, Var) else b
    return hoisted, kept, [sub.get(a, a) if isinstance(a, Var) else a for a in j.outvars]


def _hoist(kj, kc):
    """Loop-invariant code motion of the known body `kj` (JAX's `_scan_known_hoisting`),
    whose first invars are bound to the loop's known consts `kc`: its invariant
    equations (`_invariant_split`) restaged before the loop. -> (those equations,
    `outer`: each const binder and each of their outputs -> its value outside the
    loop, the equations left in the body, the body's outvars)."""
    n = len(kc)
    inv = {v for v in kj.invars[:n] if not isinstance(v.aval, core.AbstractRef)}
    hoisted, kept, outvars = _invariant_split(kj, inv, {})
    live = {a for e in kept for a in e.invars} | set(outvars)
    needed = []
    for e in reversed(hoisted):
        if any(v in live for v in e.outvars):
            needed.append(e)
            live.update(e.invars)
    outer = dict(zip(kj.invars[:n], kc))
    before = []
    for e in reversed(needed):
        outs = [Var(v.aval, v.hint) for v in e.outvars]
        before.append(e.replace(invars=[outer[a] if isinstance(a, Var) else a
                                        for a in e.invars], outvars=outs))
        outer.update(zip(e.outvars, outs))
    return before, outer, kept, outvars


def _scan_partial_eval(tx, eqn, in_uk):
    """The known scan computes the known outputs and the residuals; the unknown scan
    reads them. A residual that is the same in every iteration (a const, or computed
    from consts only) is computed once before the loop and passed as a const; one that
    is a known `xs` slice is passed as those xs; only the rest are stacked (JAX's
    loop-invariant residuals)."""
    p = eqn.params
    body, length = p["jaxpr"], p["length"]
    nc, nk = p["num_consts"], p["num_carry"]
    ny = len(body.out_avals) - nk
    c_uk, k_uk, x_uk = split_list(in_uk, nc, nk)
    while True:  # fixpoint; the converged pass's split is the one used
        known_b, unknown_b, out_uk, nres = tx.partial_eval_jaxpr(
            body, c_uk + k_uk + x_uk, instantiate=k_uk + [False] * ny)
        new = [a or b for a, b in zip(k_uk, out_uk[:nk])]
        if new == k_uk:
            break
        k_uk = new
    if known_b.consts:
        return [], [eqn], [True] * len(eqn.outvars)
    y_uk = out_uk[nk:]
    consts, carry, xs = split_list(eqn.invars, nc, nk)
    kc = [a for a, u in zip(consts, c_uk) if not u]
    kk = [a for a, u in zip(carry, k_uk) if not u]
    kx = [a for a, u in zip(xs, x_uk) if not u]
    kj = known_b.jaxpr
    n_kout = len(kj.outvars) - nres
    if not any(out_uk):
        # no output reads an unknown operand (they feed only dead values of the body):
        # the known scan runs the known body on the known operands (fuzz seed 800113:
        # the JVP of an empty `for` over an array reads the tangent as xs)
        kbody = core.ClosedJaxpr(core.Jaxpr([], kj.invars, kj.outvars[:n_kout], kj.eqns), [])
        return [Eqn(scan_p, kc + kk + kx, eqn.outvars,
                    dict(p, jaxpr=kbody, num_consts=len(kc), num_carry=len(kk)),
                    eqn.source_info)], [], out_uk
    before, outer, kept, outvars = _hoist(kj, kc)
    res_vars = outvars[n_kout:]
    kx_in = kj.invars[len(kc) + len(kk):]
    # each residual: a const of the unknown scan (invariant), the known xs themselves,
    # or a stacked output of the known scan
    where = ["const" if v in outer else "xs" if v in kx_in else "stacked" for v in res_vars]
    stacked = [i for i, w in enumerate(where) if w == "stacked"]
    body_outs = outvars[:n_kout] + [res_vars[i] for i in stacked]
    binders = list(dict.fromkeys(  # the hoisted values the body still reads
        a for a in [a for e in kept for a in e.invars] + body_outs
        if isinstance(a, Var) and a in outer and a not in kj.invars))
    kbody = core.ClosedJaxpr(core.Jaxpr([], binders + kj.invars, body_outs, kept), [])
    stacked_vars = [Var(res_vars[i].aval.update(shape=(length,) + res_vars[i].aval.shape))
                    for i in stacked]
    known_k_out = [v for v, u in zip(eqn.outvars[:nk], k_uk) if not u]
    known_y_out = [v for v, u in zip(eqn.outvars[nk:], y_uk) if not u]
    k_outs = known_k_out + known_y_out + stacked_vars
    if k_outs or any(core.has_effects(e) for e in kept):
        before.append(Eqn(scan_p, [outer[v] for v in binders] + kc + kk + kx, k_outs,
                          dict(p, jaxpr=kbody, num_consts=len(binders) + len(kc),
                               num_carry=len(kk)), eqn.source_info))
    # unknown scan: consts = const residuals + unknown consts; carry = unknown carry;
    # xs = stacked and xs residuals + unknown xs
    uj = unknown_b.jaxpr
    r_in, rest = uj.invars[:nres], uj.invars[nres:]
    n_uc = sum(c_uk)
    n_uk = sum(k_uk)
    const_idx = [i for i, w in enumerate(where) if w == "const"]
    ext_idx = [i for i, w in enumerate(where) if w != "const"]
    stacked_it = iter(stacked_vars)
    ext_ops = [next(stacked_it) if where[i] == "stacked" else kx[kx_in.index(res_vars[i])]
               for i in ext_idx]
    u_invars = ([r_in[i] for i in const_idx] + rest[:n_uc] + rest[n_uc:n_uc + n_uk]
                + [r_in[i] for i in ext_idx] + rest[n_uc + n_uk:])
    ubody = core.ClosedJaxpr(core.Jaxpr([], u_invars, uj.outvars, uj.eqns), [])
    u_operands = ([outer[res_vars[i]] for i in const_idx] + [a for a, u in zip(consts, c_uk) if u]
                  + [a for a, u in zip(carry, k_uk) if u] + ext_ops
                  + [a for a, u in zip(xs, x_uk) if u])
    uk_out = ([v for v, u in zip(eqn.outvars[:nk], k_uk) if u]
              + [v for v, u in zip(eqn.outvars[nk:], y_uk) if u])
    uparams = dict(p, jaxpr=ubody, num_consts=len(const_idx) + n_uc, num_carry=n_uk)
    u_eqn = Eqn(scan_p, u_operands, uk_out, uparams, eqn.source_info)
    return before, [u_eqn], k_uk + y_uk


def _scan_transpose(tx, cts, *args, jaxpr, length, reverse, num_consts, num_carry, unroll=1):
    nc, nk = num_consts, num_carry
    consts, carry, xs = split_list(list(args), nc, nk)
    c_lin = [core.is_undefined(c) for c in consts]
    x_lin = [core.is_undefined(x) for x in xs]
    k_avals = [v.aval for v in jaxpr.jaxpr.invars[nc:nc + nk]]
    ct_k = [instantiate(c, a) for c, a in zip(cts[:nk], k_avals)]
    ct_y = cts[nk:]
    y_zero = [isinstance(c, core.Zero) for c in ct_y]
    bt = tx.transpose_jaxpr(jaxpr, c_lin + [True] * nk + x_lin, [False] * nk + y_zero)
    # bt: (nl consts, nl xs, ct_k', nz ct_y) -> (ct lin consts, ct carry, ct lin xs)
    nl_c = [c for c in consts if not core.is_undefined(c)]
    nl_x = [x for x in xs if not core.is_undefined(x)]
    lin_c_avals = [c.aval for c in consts if core.is_undefined(c)]
    nz_ct_y = [c for c in ct_y if not isinstance(c, core.Zero)]
    n_lc = len(lin_c_avals)

    def step(carry_, xs_):
        acc, ck = carry_
        xnl, cy = xs_
        outs = tx.inline(bt, list(nl_c) + list(xnl) + list(ck) + list(cy))
        d_c, d_k, d_x = split_list(outs, n_lc, nk)
        acc = [add_tangents(a, d) for a, d in zip(acc, d_c)]
        return (acc, d_k), d_x

    init = ([zeros_like_aval(a) for a in lin_c_avals], ct_k)
    (acc, ck), ct_x = scan_raw(step, init, (nl_x, nz_ct_y), length=length, reverse=not reverse)
    acc_it, x_it = iter(acc), iter(ct_x)
    out = [next(acc_it) if l else None for l in c_lin]
    out += [c if core.is_undefined(k) else None for c, k in zip(ck, carry)]
    out += [next(x_it) if l else None for l in x_lin]
    return out

# ---- vmap --------------------------------------------------------------------------


def _scan_batch(tx, args, dims, *, jaxpr, length, reverse, num_consts, num_carry, unroll=1):
    frame = core.axis_frame()
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
        out_m = tx.mapped_outputs(jaxpr, in_d, size, name)
        new = [a or b for a, b in zip(mapped, out_m[:num_carry])]
        if new == mapped:
            break
        mapped = new
    carry = [x if not m else matchaxis(x, d, 0, size) for x, d, m in zip(carry, k_d, mapped)]
    in_d = c_d + [0 if m else not_mapped for m in mapped] + xb_d
    body, body_c, out_m = tx.batch_subjaxpr(jaxpr, in_d, size, name,
                                            force_out=mapped + [False] * n_ys)
    outs = bind(scan_p, *body_c, *consts, *carry, *xs, jaxpr=body, length=length,
                reverse=reverse, num_consts=len(body_c) + num_consts, num_carry=num_carry,
                unroll=unroll)
    out_dims = [0 if m else not_mapped for m in mapped] + [
        1 if m else not_mapped for m in out_m[num_carry:]]
    return outs, out_dims

# ---- dead-code elimination ---------------------------------------------------------


def _scan_dce(tx, eqn, used_outputs):
    p = eqn.params
    body = p["jaxpr"]
    nc, nk = p["num_consts"], p["num_carry"]
    used_k = list(used_outputs[:nk])
    used_y = list(used_outputs[nk:])
    while True:  # fixpoint; the converged pass's body is the one kept
        j, used_in = tx.dce_jaxpr(body.jaxpr, used_k + used_y)
        new = [a or b for a, b in zip(used_k, used_in[nc:nc + nk])]
        if new == used_k:
            break
        used_k = new
    used_c, _, used_x = split_list(used_in, nc, nk)
    keep_in = used_c + used_k + used_x
    j = core.Jaxpr(j.constvars, [v for v, u in zip(j.invars, keep_in) if u], j.outvars, j.eqns)
    new = eqn.replace(invars=[a for a, u in zip(eqn.invars, keep_in) if u],
                      outvars=[v for v, u in zip(eqn.outvars, used_k + used_y) if u],
                      params=dict(p, jaxpr=core.ClosedJaxpr(j, body.consts),
                                  num_consts=sum(used_c), num_carry=sum(used_k)))
    if not any(used_k + used_y):
        return None, [False] * len(eqn.invars)
    return new, keep_in

# ---- printed source: for i in range(n) (loop helpers shared with while_loop) -------


def carry_names(gen, eqn, inits, out_vars, inner_in, inner_out, stmts):
    """Names of loop carries: the loop's output names. A carry reuses its initial
    value's name when that variable is not read again (`x = x * 2` in the loop),
    else it is initialised before the loop (`x_1 = x`)."""
    scope, idx = gen.current()
    names, pre = [], []
    taken = set()
    for k, (init, v) in enumerate(zip(inits, out_vars)):
        own = gen.hint_from(v, inner_out[k], inner_in[k])
        reuse = (isinstance(init, core.Var) and init in scope.owned and init not in taken
                 and scope.uses[init] == 1 and scope.last_read.get(init) == idx
                 and gen.name_of(init) is not None
                 and (own is None or init.hint is None or own == init.hint))
        # (a named input `x` carried as `y` gets `y = x` before the loop instead)
        if reuse:
            name = gen.name_of(init)
            taken.add(init)
            gen.preset.pop(v, None)
            gen.name_var(v, name)
        else:
            base = gen.hint_from(v, inner_out[k], inner_in[k], init) or "carry"
            name = gen.out_name(v, base)
            pre.append((name, gen.typed_arg(init, v.aval)))
        names.append(name)
    for n, e in pre:
        stmts.append(assign(n, e))
    return names


def loop_fuse(gen, scope, eqn, inits, inner_in, inner_out):
    """A loop carry initialised from an unnamed temporary used only here: compute the
    temporary straight into the carry's name (`ct_x = y + y`, not `acc = ...` +
    `ct_x = acc`)."""
    for k, (init, v) in enumerate(zip(inits, eqn.outvars)):
        if (isinstance(init, core.Var) and init.hint is None and init in scope.producer
                and scope.uses[init] == 1 and init not in gen.preset):
            own = gen.hint_from(v, inner_out[k], inner_in[k])
            if own:
                gen.preset[init] = gen.fresh(own)


def preset_carry_outputs(gen, jaxpr, carry_in, carry_out, names):
    """Body outputs that can be computed straight into the carry's name: produced by
    a body equation after the last read of the carry's incoming value."""
    scope = gen.use_facts(jaxpr)
    n = len(jaxpr.eqns)
    seen = set()
    for k, (vin, vout, name) in enumerate(zip(carry_in, carry_out, names)):
        if not isinstance(vout, core.Var) or vout in seen or vout not in scope.producer:
            seen.add(vout)
            continue
        seen.add(vout)
        p = scope.producer[vout]
        statement = gen.is_statement(jaxpr.eqns[p].primitive)
        last = scope.last_read.get(vin, -1)
        if last == n and vin in jaxpr.outvars:
            continue  # read again at the end (another carry takes it)
        if last < p or (last == p and not statement):
            gen.preset[vout] = name


def _scan_fuse(gen, scope, i, eqn):
    p = eqn.params
    nconst, ncarry = p["num_consts"], p["num_carry"]
    bj = p["jaxpr"].jaxpr
    loop_fuse(gen, scope, eqn, eqn.invars[nconst:nconst + ncarry],
              bj.invars[nconst:nconst + ncarry], bj.outvars[:ncarry])
    # a 1-d int32 iota used only as this scan's xs: the loop counter
    for x in eqn.invars[nconst + ncarry:]:
        j = scope.producer.get(x) if isinstance(x, core.Var) else None
        if j is None:
            continue
        it = scope.jaxpr.eqns[j]
        ip = it.params
        if (it.primitive is iota_p and len(ip["shape"]) == 1 and ip["dtype"] == dtypes.int32
                and scope.uses[x] == 1):
            gen.skip.add(id(it))
            gen.fused[x] = ("range", 0)


@statement_rule
def _scan_source(gen, eqn, stmts):
    p = eqn.params
    body_j = p["jaxpr"].jaxpr
    nconst, ncarry, length, reverse = p["num_consts"], p["num_carry"], p["length"], p["reverse"]
    consts = eqn.invars[:nconst]
    init = eqn.invars[nconst:nconst + ncarry]
    xs = eqn.invars[nconst + ncarry:]
    b_consts = body_j.invars[:nconst]
    b_carry = body_j.invars[nconst:nconst + ncarry]
    b_xs = body_j.invars[nconst + ncarry:]
    names = carry_names(gen, eqn, init, eqn.outvars[:ncarry], b_carry,
                        body_j.outvars[:ncarry], stmts)
    for v, a in zip(b_consts, consts):
        gen.alias(v, a)
    for v, n in zip(b_carry, names):
        gen.name_var(v, n)
    counter = gen.fresh("i")
    gen.counters.add(counter)
    reads = []
    for v, x in zip(b_xs, xs):
        if gen.fused.get(x) == ("range", 0):
            gen.fused.pop(x)
            gen.name_var(v, counter)
            continue
        base = v.hint or (f"{gen.name_of(x)}_i" if gen.name_of(x) else "x_i")
        nm = gen.fresh(base)
        gen.name_var(v, nm)
        reads.append(assign(nm, ast.Subscript(value=gen.arg(x), slice=load(counter), ctx=ast.Load())))
    ys_out = eqn.outvars[ncarry:]
    b_ys = body_j.outvars[ncarry:]
    preset_carry_outputs(gen, body_j, b_carry, body_j.outvars[:ncarry], names)
    body = list(reads)
    gen.emit_jaxpr(body_j, body)
    gen.drop_presets(body_j.outvars)
    # stacked outputs are named after the user's name for what the body computes: `hs`
    ys_names = []
    for v, y in zip(ys_out, b_ys):
        h = gen.hint_from(v)
        if not h:
            yh = gen.hint_from(y)
            h = f"{yh}s" if yh and yh not in names else "ys"
        ys_names.append(gen.out_name(v, h))
    # forward: `ys.append(y)` then `jnp.stack(ys)`; reverse (or empty): a preallocated
    # `ys = ys.at[i].set(y)`, whose meaning does not depend on the iteration order
    prealloc = reverse or length == 0
    for n, v in zip(ys_names, ys_out):
        stmts.append(assign(n, call("jnp.zeros", [gen.value(v.aval.shape), dtype_expr(v.aval.dtype)])
                            if prealloc else ast.List(elts=[], ctx=ast.Load())))
    for n, y, v in zip(ys_names, b_ys, ys_out):
        if prealloc:
            at = ast.Subscript(value=attr(n, "at"), slice=load(counter), ctx=ast.Load())
            body.append(assign(n, call(attr(at, "set"), [gen.typed_arg(y, v.aval)])))
        else:
            body.append(ast.Expr(value=call(attr(n, "append"), [gen.typed_arg(y, v.aval)])))
    # after the outputs are collected: they may read the carries' old values
    gen.assign_outputs(body, [(n, gen.typed_arg(v, o.aval)) for v, o, n
                              in zip(body_j.outvars[:ncarry], eqn.outvars, names)])
    rng = (call("range", [pyconst(length - 1), pyconst(-1), pyconst(-1)]) if reverse
           else call("range", [pyconst(length)]))
    stmts.append(ast.For(target=store(counter), iter=rng, body=body or [ast.Pass()], orelse=[],
                         lineno=0))
    if not prealloc:
        for n in ys_names:
            stmts.append(assign(n, call("jnp.stack", [load(n)])))


_scan_source.fuse = _scan_fuse

register(scan_p, impl=_scan_impl, abstract_eval=_scan_ae, lowering=_scan_lowering,
         jvp=_scan_jvp, partial_eval=_scan_partial_eval, transpose=_scan_transpose,
         batch=_scan_batch, dce=_scan_dce, source=_scan_source)
# (its carry's zero cotangent is instantiated: a body equation transposed at zero runs)
scan_p.transposed_at_zero = lambda params, at_zero: any(
    at_zero(e) for e in params["jaxpr"].jaxpr.eqns)

# ---- lax.scan, lax.map -------------------------------------------------------------


def _carry_avals(leaves):
    return [core.get_aval(x) for x in leaves]


def scan(f, init, xs=None, length=None, reverse=False, unroll=1, _split_transpose=False):
    """JAX's `lax.scan`: `f(carry, x) -> (carry, y)` over the leading axis of `xs`.
    Mutable hi values (hijax Variables) the body writes where it closes over them are
    carried (`_scan_carrying`), as JAX carries them."""
    if type(unroll) is not bool:   # (JAX's classes: ValueError below 0, TypeError otherwise)
        if not isinstance(unroll, (int, np.integer)):
            raise ArgumentTypeError("`unroll` must be a `bool` or a non-negative `int`, got "
                                    f"{unroll!r:.40}")
        if unroll < 0:
            raise ArgumentValueError("`unroll` must be a `bool` or a non-negative `int`.")
    if not hi_state.active():
        return _scan(f, init, xs, length, reverse, unroll)
    return hi_state.carrying(lambda: _scan(f, init, xs, length, reverse, unroll),
                             lambda objs: _scan_carrying(objs, f, init, xs, length, reverse,
                                                         unroll))


def _scan_carrying(objs, f, init, xs, length, reverse, unroll):
    """`scan` whose carry also holds the states of the hi values `objs` (the body's
    `f` runs with them swapped into those objects); their final states stored back."""
    cap = hi_state.Lowering(list(objs))
    carried = hi_carried(objs, f)

    def body(carry, x):
        (new_c, y), states = carried(carry[0], x, carry[1])
        return (new_c, states), y

    (carry, states), ys = _scan(core.raw(body), (init, cap.tree), xs, length, reverse,
                                unroll)
    cap.write_back(states)
    return carry, ys


def _scan(f, init, xs, length, reverse, unroll):
    _aval = core.get_aval
    carry_leaves, carry_tree = tree_util.flatten_for_staging(init)
    x_leaves, x_tree = tree_util.flatten_for_staging(xs)
    lengths = {_aval(x).shape[0] for x in x_leaves if _aval(x).shape}
    if any(not _aval(x).shape for x in x_leaves):
        raise ShapeError("scan got a scalar in xs: every xs leaf needs a leading axis")
    if length is not None:
        lengths.add(canonical_dim(length))
    if len(lengths) != 1:   # (JAX's ValueError: lax.map reaches it without lax.scan's check)
        raise ArgumentValueError(
            f"scan got inconsistent lengths {sorted(lengths)}" if lengths else
            "scan got no values to scan over and `length` not provided",
            hint="every leaf of xs needs the same length along axis 0" if lengths else
                 "pass xs, or length=n for a loop without inputs")
    n = lengths.pop()
    carry_avals = _carry_avals(carry_leaves)
    x_avals = [_aval(x).update(shape=_aval(x).shape[1:]) for x in x_leaves]
    in_tree = tree_util.flatten_for_staging((init, xs))[1]

    def stage(c_avals):
        return stage_sub(f, in_tree, c_avals + x_avals, args=carry_leaves + x_leaves)

    jaxpr, consts, out_tree = stage(carry_avals)
    children = out_tree.children if out_tree.node_type is tuple else None
    if children is None or len(children) != 2:
        raise StructureError(f"the scan body must return a pair (carry, y), got {out_tree}",
                             hint="return (new_carry, y); use None for y when nothing is "
                                  "stacked")
    k = children[0].num_leaves
    new_carry = [v.aval for v in jaxpr.outvars[:k]]
    if children[0] != carry_tree:
        carry_mismatch("scan body", f, carry_tree, carry_avals, children[0], new_carry)
    carry_leaves, changed = promote_weak_carry(carry_leaves, carry_avals, new_carry)
    if changed:
        carry_avals = _carry_avals(carry_leaves)
        jaxpr, consts, out_tree = stage(carry_avals)
        new_carry = [v.aval for v in jaxpr.outvars[:k]]
    carry_mismatch("scan body", f, carry_tree, carry_avals, carry_tree, new_carry)
    outs = bind_scan((jaxpr, consts), carry_leaves, x_leaves, length=n, reverse=reverse,
                     unroll=int(unroll) if not isinstance(unroll, bool) else (n if unroll else 1))
    carry_out = tree_util.tree_unflatten(carry_tree, outs[:k])
    ys = tree_util.tree_unflatten(children[1], outs[k:])
    if core.current_builder() is not None:
        return carry_out, ys
    # eager: a carry the body passes on unchanged, a y that is its x: the operand
    fwd = {o: i for o, i in enumerate(forwarded(jaxpr))
           if i is not None and (i == o if o < k else i >= k)}
    return forward_operands((init, xs), (carry_out, ys), fwd)


def scan_raw(f, init, xs, length=None, reverse=False):
    """`scan` of a library function, staged as it is (never source-converted)."""
    return scan(core.raw(f), init, xs, length=length, reverse=reverse)


def map(f, xs, *, batch_size=None):  # noqa: A001
    """JAX's `lax.map`: `f` applied to each leading-axis slice of `xs`."""
    _, ys = scan(lambda c, x: (c, f(x)), (), xs)
    return ys
