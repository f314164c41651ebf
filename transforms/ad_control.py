"""Autodiff of structured control flow: `cond`, `scan`, `while` (jvp, partial
evaluation, transpose). Their dead-code-elimination rules are in `dce.py`.

cond
  jvp: each branch's JVP, with the union of the branches' nonzero tangent outputs.
  partial eval: each branch splits into known/unknown parts; the known `cond` returns
  every branch's residuals (zeros in the slots of the other branches), the unknown
  `cond` takes them all. transpose: a `cond` of the branches' transposes.

scan
  jvp: the body's JVP, with a fixpoint on which carries have nonzero tangents.
  partial eval: the body splits into known/unknown parts (fixpoint on unknown
  carries); residuals that are loop-invariant consts are passed as consts, the rest
  are stacked as extra `ys` of the known scan. transpose: a scan in the opposite
  direction over the stacked residuals and the output cotangents, the cotangents of
  linear consts accumulating in the carry.

while — reverse mode with a run-time trip count, under jit, no annotation
  jvp: the body's JVP (fixpoint on nonzero carries); the cond reads primals only.
  partial eval (linearize): the known part is the primal loop; the unknown part is
  the whole JVP loop, which recomputes the primal state alongside the tangents
  (JAX does the same, then refuses to transpose it).
  transpose: the JVP loop's carry splits into a non-linear state `s` (the primal
  state, which the cond reads) and a linear state `t`; the body's tangent map is
  transposed once, as IR. At run time:
    1. forward pass: run `s` forward, counting the trips `n`, and keep C checkpoints
       of `s` in a fixed buffer at a stride that starts at 1 and doubles (keeping
       every other checkpoint) whenever the buffer fills, so the stride ends
       between n/C and 2n/C;
    2. backward pass: a `while` over k = n-1, ..., 0 that restores the state at
       step k from checkpoint floor(k / stride), advances it (k mod stride) steps,
       recomputes the body's residuals there and applies the transposed body to the
       cotangent carry.
  Cost: time O(n + n * stride / 2) = O(n + n^2 / C) body evaluations (O(n) while
  n <= C), memory O(C * |s|) with C fixed at compile time: a power of two in [8,
  1024], the most whose buffer fits in `WHILE_CHECKPOINT_BYTES` (32 MiB).
  Everything is plain `while`/`cond`/`dynamic_slice` IR, so it compiles with the
  loop and differentiates again (grad of grad).
"""
from __future__ import annotations

import numpy as np

from astjax import core, dtypes, lax
from astjax.core import Eqn, Var, bind
from astjax.lax_control import closure_convert, join_consts
from astjax.primitives.control import cond_p, scan_p, while_p
from astjax.staging import StagedCallable

from .ad import (UndefinedPrimal, Zero, differentiable, inline, instantiate, is_undefined,
                 jvp_jaxpr, partial_eval_jaxpr, partial_eval_rules, transpose_jaxpr,
                 zeros_like_aval, DifferentiationError)
from .dce import dce_jaxpr, dce_rules

WHILE_CHECKPOINT_BYTES = 32 << 20
WHILE_MAX_CHECKPOINTS = 1024
WHILE_MIN_CHECKPOINTS = 8

# ------------------------------------------------------------------------- helpers


class _Raw(StagedCallable):
    """An internal function that stages as it is (never source-converted)."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)

    stage_inline = __call__


def raw(fn):
    return _Raw(fn)


def scan_raw(f, init, xs, length=None, reverse=False):
    return lax.scan(raw(f), init, xs, length=length, reverse=reverse)


def _split(xs, *ns):
    out, i = [], 0
    for n in ns:
        out.append(list(xs[i:i + n]))
        i += n
    out.append(list(xs[i:]))
    return out


def _no_consts(cj: core.ClosedJaxpr):
    """(ClosedJaxpr without consts taking them as leading invars, consts)."""
    if not cj.consts:
        return cj, []
    return closure_convert(cj.jaxpr), list(cj.consts)


def _permute(cj: core.ClosedJaxpr, in_order, out_order):
    j = cj.jaxpr
    return core.ClosedJaxpr(core.Jaxpr(j.constvars, [j.invars[i] for i in in_order],
                                       [j.outvars[i] for i in out_order], j.eqns), cj.consts)


def _stage(fn, avals):
    return core.stage(fn, avals)


def _zeros(aval):
    return zeros_like_aval(aval)

# ---------------------------------------------------------------------------- cond


def _cond_jvp(primals, tangents, *, branches):
    index, *ops = primals
    ts = tangents[1:]
    nz = [not isinstance(t, Zero) for t in ts]
    n_out = len(branches[0].out_avals)
    out_nz = [False] * n_out
    for br in branches:
        _, o = jvp_jaxpr(br, nz, instantiate=False)
        out_nz = [a or b for a, b in zip(out_nz, o)]
    jvps = [jvp_jaxpr(br, nz, instantiate=out_nz)[0] for br in branches]
    closed, consts = join_consts([(c.jaxpr, c.consts) for c in jvps])
    # join_consts puts consts first: branches take (consts, ops, tangents)
    nz_ts = [t for t in ts if not isinstance(t, Zero)]
    outs = bind(cond_p, index, *consts, *ops, *nz_ts, branches=tuple(closed))
    primal_out = outs[:n_out]
    it = iter(outs[n_out:])
    tout = [next(it) if o else Zero(a) for o, a in zip(out_nz, branches[0].out_avals)]
    return primal_out, tout


def _cond_partial_eval(eqn, in_uk):
    branches = eqn.params["branches"]
    if in_uk[0]:
        return [], [eqn], [True] * len(eqn.outvars)
    ops_uk = in_uk[1:]
    out_uk = [False] * len(eqn.outvars)
    for br in branches:
        _, _, o, _ = partial_eval_jaxpr(br, ops_uk, instantiate=False)
        out_uk = [a or b for a, b in zip(out_uk, o)]
    splits = [partial_eval_jaxpr(br, ops_uk, instantiate=out_uk) for br in branches]
    res_avals = [[v.aval for v in k.jaxpr.outvars[len(k.jaxpr.outvars) - nres:]]
                 for k, _, _, nres in splits]
    n_known_out = sum(1 for u in out_uk if not u)
    known_ops = [a for a, u in zip(eqn.invars[1:], ops_uk) if not u]
    uk_ops = [a for a, u in zip(eqn.invars[1:], ops_uk) if u]
    k_avals = [a.aval for a in known_ops]

    def known_branch(i):
        k, _, _, nres = splits[i]

        def fn(*args):
            outs = inline(k, args)
            res = outs[len(outs) - nres:]
            out = list(outs[:n_known_out])
            for j, avs in enumerate(res_avals):
                out += res if j == i else [_zeros(a) for a in avs]
            return out
        return _stage(fn, k_avals)

    all_res = [a for avs in res_avals for a in avs]
    uk_avals = [a.aval for a in uk_ops]

    def unknown_branch(i):
        _, u, _, nres = splits[i]
        off = sum(len(r) for r in res_avals[:i])

        def fn(*args):
            res = list(args[off:off + nres])
            return inline(u, res + list(args[len(all_res):]))
        return _stage(fn, all_res + uk_avals)

    kb, kconsts = join_consts([(c.jaxpr, c.consts) for c in map(known_branch, range(len(branches)))])
    ub, uconsts = join_consts([(c.jaxpr, c.consts) for c in map(unknown_branch, range(len(branches)))])
    if kconsts or uconsts:
        return [], [eqn], [True] * len(eqn.outvars)  # not expected: branches are const-free
    res_vars = [Var(a) for a in all_res]
    known_out = [v for v, u in zip(eqn.outvars, out_uk) if not u]
    k_eqn = Eqn(cond_p, [eqn.invars[0]] + known_ops, known_out + res_vars,
                dict(branches=tuple(kb)), eqn.source_info)
    uk_out = [v for v, u in zip(eqn.outvars, out_uk) if u]
    u_eqn = Eqn(cond_p, [eqn.invars[0]] + res_vars + uk_ops, uk_out, dict(branches=tuple(ub)),
                eqn.source_info)
    return [k_eqn], [u_eqn] if uk_out else [], out_uk


def _cond_transpose(cts, index, *ops, branches):
    if is_undefined(index):
        raise AssertionError("cond is not linear in its index")
    lin = [is_undefined(o) for o in ops]
    zero_cts = [isinstance(c, Zero) for c in cts]
    if all(zero_cts):
        return [None] * (1 + len(ops))
    bts = [transpose_jaxpr(br, lin, zero_cts) for br in branches]
    closed, consts = join_consts([(c.jaxpr, c.consts) for c in bts])
    nl = [o for o in ops if not is_undefined(o)]
    outs = bind(cond_p, index, *consts, *nl, *[c for c in cts if not isinstance(c, Zero)],
                branches=tuple(closed))
    it = iter(outs)
    return [None] + [next(it) if l else None for l in lin]


core.jvp_rules[cond_p] = _cond_jvp
partial_eval_rules[cond_p] = _cond_partial_eval
core.transpose_rules[cond_p] = _cond_transpose
core.linear_primitives.add(cond_p)

# ---------------------------------------------------------------------------- scan


def _scan_jvp(primals, tangents, *, jaxpr, length, reverse, num_consts, num_carry, unroll=1):
    nc, nk = num_consts, num_carry
    n_in = len(primals)
    nx = n_in - nc - nk
    ny = len(jaxpr.out_avals) - nk
    nz = [not isinstance(t, Zero) for t in tangents]
    nz_c, nz_k, nz_x = _split(nz, nc, nk)
    nz_k = [a and differentiable(v.aval) for a, v in zip(nz_k, jaxpr.jaxpr.invars[nc:nc + nk])]
    while True:
        jv, out_nz = jvp_jaxpr(jaxpr, nz_c + nz_k + nz_x, instantiate=nz_k + [False] * ny)
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
    body, extra = _no_consts(jv)
    consts, carry, xs = _split(list(primals), nc, nk)
    tc, tk, tx = _split(list(tangents), nc, nk)
    ct = [t for t in tc if not isinstance(t, Zero)]
    kt = [instantiate(t, v.aval) for t, v, z in zip(tk, jaxpr.jaxpr.invars[nc:nc + nk], nz_k) if z]
    xt = [t for t in tx if not isinstance(t, Zero)]
    outs = bind(scan_p, *extra, *consts, *ct, *carry, *kt, *xs, *xt, jaxpr=body, length=length,
                reverse=reverse, num_consts=len(extra) + nc + len(ct), num_carry=nk + len(kt),
                unroll=unroll)
    k_out, kt_out, y_out, yt_out = _split(outs, nk, n_kt, ny)
    kt_it, yt_it = iter(kt_out), iter(yt_out)
    out_avals = [v.aval for v in jaxpr.jaxpr.outvars]
    t_k = [next(kt_it) if z else Zero(a) for z, a in zip(nz_k, out_avals[:nk])]
    t_y = [next(yt_it) if z else Zero(a.update(shape=(length,) + a.shape))
           for z, a in zip(nz_y, out_avals[nk:])]
    return k_out + y_out, t_k + t_y


def _scan_partial_eval(eqn, in_uk):
    p = eqn.params
    body, length = p["jaxpr"], p["length"]
    nc, nk = p["num_consts"], p["num_carry"]
    ny = len(body.out_avals) - nk
    c_uk, k_uk, x_uk = _split(in_uk, nc, nk)
    while True:
        _, _, out_uk, _ = partial_eval_jaxpr(body, c_uk + k_uk + x_uk,
                                             instantiate=k_uk + [False] * ny)
        new = [a or b for a, b in zip(k_uk, out_uk[:nk])]
        if new == k_uk:
            break
        k_uk = new
    known_b, unknown_b, out_uk, nres = partial_eval_jaxpr(
        body, c_uk + k_uk + x_uk, instantiate=k_uk + [False] * ny)
    if not any(out_uk):
        return [eqn], [], out_uk
    y_uk = out_uk[nk:]
    consts, carry, xs = _split(eqn.invars, nc, nk)
    kc = [a for a, u in zip(consts, c_uk) if not u]
    kk = [a for a, u in zip(carry, k_uk) if not u]
    kx = [a for a, u in zip(xs, x_uk) if not u]
    kj = known_b.jaxpr
    n_kout = len(kj.outvars) - nres
    res_vars = kj.outvars[n_kout:]
    kc_invars = kj.invars[:len(kc)]
    # a residual that is a known const of the body is passed as a const
    const_res = [kc[kc_invars.index(v)] if isinstance(v, Var) and v in kc_invars else None
                 for v in res_vars]
    stacked = [i for i, c in enumerate(const_res) if c is None]
    kbody = core.ClosedJaxpr(core.Jaxpr(kj.constvars, kj.invars,
                                        kj.outvars[:n_kout] + [res_vars[i] for i in stacked],
                                        kj.eqns), known_b.consts)
    kbody, kextra = _no_consts(kbody)
    stacked_vars = [Var(res_vars[i].aval.update(shape=(length,) + res_vars[i].aval.shape))
                    for i in stacked]
    known_k_out = [v for v, u in zip(eqn.outvars[:nk], k_uk) if not u]
    known_y_out = [v for v, u in zip(eqn.outvars[nk:], y_uk) if not u]
    kparams = dict(p, jaxpr=kbody, num_consts=len(kextra) + len(kc), num_carry=len(kk))
    if kextra:
        return [], [eqn], [True] * len(eqn.outvars)
    k_eqn = Eqn(scan_p, kc + kk + kx, known_k_out + known_y_out + stacked_vars, kparams,
                eqn.source_info)
    # unknown scan: consts = const residuals + unknown consts; carry = unknown carry;
    # xs = stacked residuals + unknown xs
    uj = unknown_b.jaxpr
    r_in, rest = uj.invars[:nres], uj.invars[nres:]
    n_uc = sum(c_uk)
    n_uk = sum(k_uk)
    const_idx = [i for i, c in enumerate(const_res) if c is not None]
    u_invars = ([r_in[i] for i in const_idx] + rest[:n_uc] + rest[n_uc:n_uc + n_uk]
                + [r_in[i] for i in stacked] + rest[n_uc + n_uk:])
    ubody = core.ClosedJaxpr(core.Jaxpr([], u_invars, uj.outvars, uj.eqns), [])
    u_operands = ([const_res[i] for i in const_idx] + [a for a, u in zip(consts, c_uk) if u]
                  + [a for a, u in zip(carry, k_uk) if u] + stacked_vars
                  + [a for a, u in zip(xs, x_uk) if u])
    uk_out = ([v for v, u in zip(eqn.outvars[:nk], k_uk) if u]
              + [v for v, u in zip(eqn.outvars[nk:], y_uk) if u])
    uparams = dict(p, jaxpr=ubody, num_consts=len(const_idx) + n_uc, num_carry=n_uk)
    u_eqn = Eqn(scan_p, u_operands, uk_out, uparams, eqn.source_info)
    return [k_eqn], [u_eqn], k_uk + y_uk


def _scan_transpose(cts, *args, jaxpr, length, reverse, num_consts, num_carry, unroll=1):
    nc, nk = num_consts, num_carry
    consts, carry, xs = _split(list(args), nc, nk)
    ny = len(jaxpr.out_avals) - nk
    c_lin = [is_undefined(c) for c in consts]
    x_lin = [is_undefined(x) for x in xs]
    k_avals = [v.aval for v in jaxpr.jaxpr.invars[nc:nc + nk]]
    ct_k = [instantiate(c, a) for c, a in zip(cts[:nk], k_avals)]
    ct_y = cts[nk:]
    y_zero = [isinstance(c, Zero) for c in ct_y]
    bt = transpose_jaxpr(jaxpr, c_lin + [True] * nk + x_lin, [False] * nk + y_zero)
    # bt: (nl consts, nl xs, ct_k', nz ct_y) -> (ct lin consts, ct carry, ct lin xs)
    nl_c = [c for c in consts if not is_undefined(c)]
    nl_x = [x for x in xs if not is_undefined(x)]
    lin_c_avals = [c.aval for c in consts if is_undefined(c)]
    nz_ct_y = [c for c in ct_y if not isinstance(c, Zero)]
    n_lc = len(lin_c_avals)

    def step(carry_, xs_):
        acc, ck = carry_
        xnl, cy = xs_
        outs = inline(bt, list(nl_c) + list(xnl) + list(ck) + list(cy))
        d_c, d_k, d_x = _split(outs, n_lc, nk)
        acc = [lax.add_any(a, d) for a, d in zip(acc, d_c)]
        return (acc, d_k), d_x

    init = ([_zeros(a) for a in lin_c_avals], ct_k)
    (acc, ck), ct_x = scan_raw(step, init, (nl_x, nz_ct_y), length=length, reverse=not reverse)
    acc_it, x_it = iter(acc), iter(ct_x)
    out = [next(acc_it) if l else None for l in c_lin]
    out += [c if is_undefined(k) else None for c, k in zip(ck, carry)]
    out += [next(x_it) if l else None for l in x_lin]
    return out


core.jvp_rules[scan_p] = _scan_jvp
partial_eval_rules[scan_p] = _scan_partial_eval
core.transpose_rules[scan_p] = _scan_transpose
core.linear_primitives.add(scan_p)

# --------------------------------------------------------------------------- while


def _while_jvp(primals, tangents, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    ncc, nbc = cond_nconsts, body_nconsts
    cc, bc, carry = _split(list(primals), ncc, nbc)
    _, tbc, tk = _split(list(tangents), ncc, nbc)
    nk = len(carry)
    nz_bc = [not isinstance(t, Zero) for t in tbc]
    k_avals = [v.aval for v in body_jaxpr.jaxpr.invars[nbc:]]
    nz_k = [not isinstance(t, Zero) and differentiable(a) for t, a in zip(tk, k_avals)]
    while True:
        jv, out_nz = jvp_jaxpr(body_jaxpr, nz_bc + nz_k, instantiate=nz_k)
        new = [a or b for a, b in zip(nz_k, out_nz)]
        if new == nz_k:
            break
        nz_k = new
    n_bt, n_kt = sum(nz_bc), sum(nz_k)
    # jv: (bc, k, bct, kt) -> (k', kt')  ->  (bc, bct, k, kt) -> (k', kt')
    in_order = (list(range(nbc)) + list(range(nbc + nk, nbc + nk + n_bt))
                + list(range(nbc, nbc + nk)) + list(range(nbc + nk + n_bt, nbc + nk + n_bt + n_kt)))
    jv = _permute(jv, in_order, list(range(nk + n_kt)))
    body, extra = _no_consts(jv)
    cj = cond_jaxpr.jaxpr
    kt_avals = [a for a, z in zip(k_avals, nz_k) if z]
    cond = core.ClosedJaxpr(core.Jaxpr([], cj.invars + [Var(a) for a in kt_avals], cj.outvars,
                                       cj.eqns), [])
    bct = [t for t in tbc if not isinstance(t, Zero)]
    kt = [instantiate(t, a) for t, a, z in zip(tk, k_avals, nz_k) if z]
    outs = bind(while_p, *cc, *extra, *bc, *bct, *carry, *kt, cond_jaxpr=cond, body_jaxpr=body,
                cond_nconsts=ncc, body_nconsts=len(extra) + nbc + len(bct))
    k_out, kt_out = outs[:nk], outs[nk:]
    it = iter(kt_out)
    return k_out, [next(it) if z else Zero(a) for z, a in zip(nz_k, k_avals)]


def _cond_reads(cond_jaxpr, ncc):
    _, used = dce_jaxpr(cond_jaxpr.jaxpr)
    return used[ncc:]


def _while_partial_eval(eqn, in_uk):
    p = eqn.params
    ncc, nbc = p["cond_nconsts"], p["body_nconsts"]
    body, cond = p["body_jaxpr"], p["cond_jaxpr"]
    cc_uk, bc_uk, k_uk = _split(in_uk, ncc, nbc)
    everything = [], [eqn], [True] * len(eqn.outvars)
    if any(cc_uk):
        return everything
    while True:
        _, _, out_uk, _ = partial_eval_jaxpr(body, bc_uk + k_uk, instantiate=k_uk)
        new = [a or b for a, b in zip(k_uk, out_uk)]
        if new == k_uk:
            break
        k_uk = new
    reads = _cond_reads(cond, ncc)
    if any(r and u for r, u in zip(reads, k_uk)):
        return everything
    known_b, _, _, nres = partial_eval_jaxpr(body, bc_uk + k_uk, instantiate=k_uk)
    kj = known_b.jaxpr
    kbody = core.Jaxpr(kj.constvars, kj.invars, kj.outvars[:len(kj.outvars) - nres], kj.eqns)
    kbody, _ = dce_jaxpr(kbody)
    kbody, kextra = _no_consts(core.ClosedJaxpr(kbody, known_b.consts))
    if kextra:
        return everything
    cj = cond.jaxpr
    kcond = core.ClosedJaxpr(core.Jaxpr([], cj.invars[:ncc] + [v for v, u in zip(cj.invars[ncc:], k_uk)
                                                               if not u], cj.outvars, cj.eqns), [])
    cc, bc, carry = _split(eqn.invars, ncc, nbc)
    kbc = [a for a, u in zip(bc, bc_uk) if not u]
    kk = [a for a, u in zip(carry, k_uk) if not u]
    k_out = [v for v, u in zip(eqn.outvars, k_uk) if not u]
    k_eqn = Eqn(while_p, cc + kbc + kk, k_out,
                dict(cond_jaxpr=kcond, body_jaxpr=kbody, cond_nconsts=ncc,
                     body_nconsts=len(kbc)), eqn.source_info)
    # the unknown loop is the whole loop, recomputing the known carries
    if not any(k_uk):
        return [k_eqn], [], k_uk
    u_out = [v if u else Var(v.aval) for v, u in zip(eqn.outvars, k_uk)]
    u_eqn = eqn.replace(outvars=u_out)
    return [k_eqn], [u_eqn], k_uk


def _num_checkpoints(avals):
    nbytes = sum(a.size * np.dtype(a.dtype).itemsize for a in avals) or 1
    c = WHILE_CHECKPOINT_BYTES // nbytes
    c = max(WHILE_MIN_CHECKPOINTS, min(WHILE_MAX_CHECKPOINTS, c))
    return 1 << (int(c).bit_length() - 1)


def _while_transpose(cts, *args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    ncc, nbc = cond_nconsts, body_nconsts
    cc, bc, carry = _split(list(args), ncc, nbc)
    if any(is_undefined(c) for c in cc):
        raise AssertionError("while is not linear in its cond consts")
    nk = len(carry)
    bc_lin = [is_undefined(b) for b in bc]
    k_lin = [is_undefined(k) for k in carry]
    while True:
        _, _, out_uk, _ = partial_eval_jaxpr(body_jaxpr, bc_lin + k_lin, instantiate=k_lin)
        new = [a or b for a, b in zip(k_lin, out_uk)]
        if new == k_lin:
            break
        k_lin = new
    if any(r and l for r, l in zip(_cond_reads(cond_jaxpr, ncc), k_lin)):
        raise DifferentiationError("reverse-mode differentiation of a `while` loop whose "
                                   "condition depends on a differentiated value")
    body_known, body_lin, _, nres = partial_eval_jaxpr(body_jaxpr, bc_lin + k_lin,
                                                       instantiate=k_lin)
    n_bl, n_kl = sum(bc_lin), sum(k_lin)
    body_t = transpose_jaxpr(body_lin, [False] * nres + [True] * (n_bl + n_kl))
    bc_nl = [b for b in bc if not is_undefined(b)]
    k_avals = [v.aval for v in body_jaxpr.jaxpr.invars[nbc:]]
    s_avals = [a for a, l in zip(k_avals, k_lin) if not l]
    s0 = [c for c, l in zip(carry, k_lin) if not l]
    n_s = len(s0)
    cond_inv = cond_jaxpr.jaxpr.invars[ncc:]

    def step(s):
        return inline(body_known, bc_nl + list(s))[:n_s]

    def residuals(s):
        return inline(body_known, bc_nl + list(s))[n_s:]

    def cond_fn(s):
        it = iter(s)
        full = [_zeros(v.aval) if l else next(it) for v, l in zip(cond_inv, k_lin)]
        return inline(cond_jaxpr, list(cc) + full)[0]

    C = _num_checkpoints(s_avals)
    i32 = np.int32
    # 1. forward: count trips, keeping C checkpoints at a doubling stride
    bufs0 = [lax.full((C,) + a.shape, 0, a.dtype) for a in s_avals]

    def compact(bufs):
        return [lax.concatenate([lax.slice(b, (0,) * b.ndim, b.shape, (2,) + (1,) * (b.ndim - 1))] * 2, 0)
                for b in bufs]

    def fwd_body(state):
        n, stride, bufs, s = state
        store = lax.eq(lax.rem(n, stride), i32(0))
        slot = lax.div(n, stride)
        full = lax.bitwise_and(store, lax.eq(slot, i32(C)))
        bufs = lax.cond(full, raw(compact), raw(lambda b: list(b)), bufs)
        stride = lax.select(full, lax.mul(stride, i32(2)), stride)
        slot = lax.select(full, i32(C // 2), slot)
        new_bufs = []
        for b, x in zip(bufs, s):
            z = (i32(0),) * len(core.get_aval(x).shape)
            cur = lax.dynamic_slice(b, (slot,) + z, (1,) + tuple(core.get_aval(x).shape))
            val = lax.select(store, lax.reshape(x, (1,) + core.get_aval(x).shape), cur)
            new_bufs.append(lax.dynamic_update_slice(b, val, (slot,) + z))
        return lax.add(n, i32(1)), stride, new_bufs, step(s)

    n, stride, bufs, _ = lax.while_loop(raw(lambda st: cond_fn(st[3])), raw(fwd_body),
                                        (i32(0), i32(1), bufs0, s0))
    # 2. backward: k = n-1 .. 0, restoring the state at step k from a checkpoint
    lin_bc_avals = [b.aval for b in bc if is_undefined(b)]
    ct_k0 = [instantiate(c, a) for c, a, l in zip(cts, k_avals, k_lin) if l]

    def restore(k):
        j = lax.div(k, stride)
        s = [lax.reshape(lax.dynamic_slice(b, (j,) + (i32(0),) * len(a.shape), (1,) + a.shape),
                         a.shape) for b, a in zip(bufs, s_avals)]
        m = lax.sub(k, lax.mul(j, stride))
        _, s = lax.while_loop(raw(lambda st: lax.gt(st[0], i32(0))),
                              raw(lambda st: (lax.sub(st[0], i32(1)), step(st[1]))), (m, s))
        return s

    def bwd_body(state):
        k, acc, ck = state
        k = lax.sub(k, i32(1))
        s = restore(k)
        outs = inline(body_t, residuals(s) + list(ck))
        d_bc, d_k = outs[:n_bl], outs[n_bl:]
        acc = [lax.add_any(a, d) for a, d in zip(acc, d_bc)]
        return k, acc, d_k

    _, acc, ck = lax.while_loop(raw(lambda st: lax.gt(st[0], i32(0))), raw(bwd_body),
                                (n, [_zeros(a) for a in lin_bc_avals], ct_k0))
    acc_it, k_it = iter(acc), iter(ck)
    out = [None] * ncc + [next(acc_it) if l else None for l in bc_lin]
    for c, l in zip(carry, k_lin):
        ct = next(k_it) if l else None
        out.append(ct if is_undefined(c) else None)
    return out


core.jvp_rules[while_p] = _while_jvp
partial_eval_rules[while_p] = _while_partial_eval
core.transpose_rules[while_p] = _while_transpose
core.linear_primitives.add(while_p)

# DCE rules of cond / while / scan are in transforms/dce.py.
