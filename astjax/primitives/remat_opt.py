"""`remat_opt`: the forward rule of a `custom_vjp` defined with
`defvjp(fwd, bwd, optimize_remat=True)`, and `closed_call`, a plain call of a nested
jaxpr (what `remat_opt` becomes when nothing reads its residuals), with `call`, its
form over an open jaxpr without constants (JAX's `call_p`: astjax stages none itself;
a library binding one gets the closed call's rules).

When such a function is differentiated, its `fwd` is staged into one `remat_opt`
equation: operands `consts + primals`, results `residuals + primal outputs`
(`num_res` residuals first; a residual that is one of the primal inputs is passed
on by the caller, not returned), and a `fun_jaxpr_thunk` that stages the user's
primal function on demand. Its rules follow JAX 0.10.2's:

- impl / abstract_eval / lowering: the forward rule's jaxpr;
- dce: with some residual used, the forward jaxpr pruned to the used outputs (every
  primal input kept: a later DCE may still need them); with none used (the forward
  pass of a `checkpoint`, which recomputes the residuals in the backward pass), a
  `closed_call` of the *primal* function instead -- the point of the option, when
  `fwd` is an opaque kernel that costs more than the primal;
- jvp: a `remat_opt` of the JVP of both jaxprs (forward over reverse: `jacfwd` of
  a `grad`);
- partial_eval with an unknown operand: JAX's ValueError (reverse mode over the
  forward rule, e.g. `grad(grad(f))`, is not supported by JAX either); transpose:
  none (JAX's NotImplementedError);
- batch: the forward jaxpr batched, the primal thunk batched when it is called.
"""
from __future__ import annotations

from .. import core
from ..core import bind
from ..errors import DerivativeValueError
from .base import (call_dce, call_rules, call_source, inline_call_jvp, instantiate,
                   mark_unsupported, matchaxis, register)

__all__ = ["remat_opt_p", "closed_call_p", "call_p", "PrimalThunk", "remat_opt"]


class PrimalThunk:
    """`fun_jaxpr_thunk`: () -> the primal function's ClosedJaxpr taking the
    `remat_opt` equation's non-const operands, staged on the first call only (JAX's
    memoized thunk); None when it cannot be used outside the staging that made it (it
    captured staged values)."""
    __slots__ = ("make", "done", "value")

    def __init__(self, make):
        self.make, self.done, self.value = make, False, None

    def __call__(self):
        if not self.done:
            closed = self.make()
            if closed is not None and any(isinstance(c, core.Tracer) for c in closed.consts):
                closed = None   # (reads values of a builder that has finished)
            self.value, self.done = closed, True
        return self.value

    def __repr__(self):
        return "fun_jaxpr_thunk"


def _closed(jaxpr, consts):
    """A ClosedJaxpr whose first `len(consts)` invars are bound to `consts`."""
    n = len(consts)
    return core.ClosedJaxpr(core.Jaxpr(list(jaxpr.constvars) + list(jaxpr.invars[:n]),
                                       list(jaxpr.invars[n:]), jaxpr.outvars, jaxpr.eqns),
                            list(consts))

# -------------------------------------------------------------------------- remat_opt
remat_opt_p = core.new_primitive("remat_opt", multiple_results=True, higher_order=True)


def _remat_opt_jvp(tx, primals, tangents, *, num_consts, num_res, fwd_jaxpr,
                   fun_jaxpr_thunk):
    consts, args = primals[:num_consts], primals[num_consts:]
    c_dots = tangents[:num_consts]
    avals = [core.get_aval(a) for a in args]
    # every differentiable primal gets a tangent (a later DCE may keep the primal only)
    a_nz = [core.differentiable(a) for a in avals]
    a_dots = [instantiate(t, a) for t, a, nz in zip(tangents[num_consts:], avals, a_nz) if nz]
    c_nz = [not isinstance(t, core.Zero) for t in c_dots]
    c_dots = [t for t, nz in zip(c_dots, c_nz) if nz]
    jv, out_nz = tx.jvp_jaxpr(fwd_jaxpr, c_nz + a_nz, instantiate=True)
    n_out = len(fwd_jaxpr.out_avals)
    res_nz, outs_nz = out_nz[:num_res], out_nz[num_res:]
    nc, nca = len(consts), len(c_dots)

    def new_fwd(*xs):
        # operands: consts, const tangents, primals, primal tangents;
        # results: residuals, their tangents, primal outputs, their tangents
        c, cd = xs[:nc], xs[nc:nc + nca]
        a, ad_ = xs[nc + nca:nc + nca + len(args)], xs[nc + nca + len(args):]
        outs = core.inline_jaxpr(jv.jaxpr, list(jv.consts), list(c) + list(a) + list(cd)
                                 + list(ad_))
        p, t = outs[:n_out], outs[n_out:]
        k = sum(res_nz)
        return p[:num_res] + t[:k] + p[num_res:] + t[k:]

    staged = core.stage(new_fwd, [core.get_aval(x) for x in
                                  list(consts) + c_dots + list(args) + a_dots])
    body, extra = core.split_consts(staged)

    def fun_jvp():
        fun = fun_jaxpr_thunk()
        if fun is None:
            return None
        fjv, _ = tx.jvp_jaxpr(fun, a_nz, instantiate=True)
        return fjv

    outs = bind(remat_opt_p, *extra, *consts, *c_dots, *args, *a_dots,
                num_consts=len(extra) + nc + nca, num_res=num_res + sum(res_nz),
                fwd_jaxpr=body, fun_jaxpr_thunk=PrimalThunk(fun_jvp))
    k = sum(res_nz)
    res, res_dot = outs[:num_res], outs[num_res:num_res + k]
    p_out = outs[num_res + k:num_res + k + (n_out - num_res)]
    t_out = outs[num_res + k + (n_out - num_res):]
    it_r, it_o = iter(res_dot), iter(t_out)
    avals_out = fwd_jaxpr.out_avals
    tangents_out = ([next(it_r) if nz else core.Zero(a)
                     for nz, a in zip(res_nz, avals_out[:num_res])]
                    + [next(it_o) if nz else core.Zero(a)
                       for nz, a in zip(outs_nz, avals_out[num_res:])])
    return list(res) + list(p_out), tangents_out


def _remat_opt_partial_eval(tx, eqn, in_uk):
    # JAX has no rule either: the whole equation would be unknown, its primal outputs
    # with it, and linearization fails
    raise DerivativeValueError(
        "Linearization failed to produce known values for all output primals: the "
        "forward rule of a custom_vjp function defined with optimize_remat=True cannot "
        "be differentiated in reverse mode again", loc=eqn.source_info,
        hint="define it without optimize_remat=True to take higher-order reverse-mode "
             "derivatives (forward mode over it, e.g. jacfwd(grad(f)), works)")


def _remat_opt_batch(tx, args, dims, *, num_consts, num_res, fwd_jaxpr, fun_jaxpr_thunk):
    frame = core.axis_frame()
    n_out = len(fwd_jaxpr.out_avals)
    body, extra, _ = tx.batch_subjaxpr(fwd_jaxpr, list(dims), frame.size, frame.name,
                                       force_out=[True] * n_out)
    prim_dims = list(dims[num_consts:])

    def batched_fun():
        fun = fun_jaxpr_thunk()
        if fun is None:
            return None
        with core.extend_axis_env(frame.name, frame.size, frame.kind):
            b, b_consts, _ = tx.batch_subjaxpr(fun, prim_dims, frame.size, frame.name,
                                               force_out=[True] * len(fun.out_avals))
        if any(isinstance(c, core.Tracer) for c in b_consts):
            return None
        return _closed(b.jaxpr, b_consts)

    outs = bind(remat_opt_p, *extra, *args, num_consts=num_consts + len(extra),
                num_res=num_res, fwd_jaxpr=body, fun_jaxpr_thunk=PrimalThunk(batched_fun))
    return outs, [0] * len(outs)


def _remat_opt_dce(tx, eqn, used_outputs):
    p = eqn.params
    nc, nres = p["num_consts"], p["num_res"]
    if not any(used_outputs):
        return None, [False] * len(eqn.invars)
    outvars = [v for v, u in zip(eqn.outvars, used_outputs) if u]
    fun = None if any(used_outputs[:nres]) else p["fun_jaxpr_thunk"]()
    if fun is None:
        # residuals are read (or the primal cannot be staged again): run fwd, pruned,
        # every primal operand kept
        j, used_in = tx.dce_jaxpr(p["fwd_jaxpr"].jaxpr, used_outputs)
        used_in = [u or i >= nc for i, u in enumerate(used_in)]
        j = core.Jaxpr(j.constvars, [v for v, u in zip(j.invars, used_in) if u],
                       j.outvars, j.eqns)
        new = eqn.replace(invars=[a for a, u in zip(eqn.invars, used_in) if u],
                          outvars=outvars,
                          params=dict(p, num_consts=sum(used_in[:nc]),
                                      num_res=sum(used_outputs[:nres]),
                                      fwd_jaxpr=core.ClosedJaxpr(j, p["fwd_jaxpr"].consts)))
        return new, used_in
    # no residual read: the primal function, not the forward rule
    j, used_prim = tx.dce_jaxpr(fun.jaxpr, used_outputs[nres:], prune_invars=True)
    call = core.ClosedJaxpr(j, fun.consts)
    new = core.Eqn(closed_call_p, [a for a, u in zip(eqn.invars[nc:], used_prim) if u],
                   outvars, dict(call_jaxpr=call), eqn.source_info)
    return new, [False] * nc + list(used_prim)


register(remat_opt_p, **call_rules("fwd_jaxpr"), jvp=_remat_opt_jvp,
         partial_eval=_remat_opt_partial_eval, batch=_remat_opt_batch, dce=_remat_opt_dce,
         source=call_source("fwd_jaxpr", "custom_vjp forward rule (optimize_remat)"))
mark_unsupported(remat_opt_p, "transpose", "remat optimization for custom_vjp does not "
                 "support higher-order AD (JAX's NotImplementedError)")

# ------------------------------------------------------------------------- closed_call
closed_call_p = core.new_primitive("closed_call", multiple_results=True, higher_order=True)
closed_call_p.call_primitive = True


def _closed_call_batch(tx, args, dims, *, call_jaxpr):
    frame = core.axis_frame()
    args = [matchaxis(x, d, 0, frame.size) if d is not None else x
            for x, d in zip(args, dims)]
    dims = [0 if d is not None else None for d in dims]
    body, extra, mapped = tx.batch_subjaxpr(call_jaxpr, dims, frame.size, frame.name)
    outs = core.inline_jaxpr(body.jaxpr, list(body.consts), list(extra) + list(args))
    return outs, [0 if m else None for m in mapped]


register(closed_call_p, **call_rules("call_jaxpr"), jvp=inline_call_jvp("call_jaxpr"),
         batch=_closed_call_batch,
         dce=call_dce("call_jaxpr"), source=call_source("call_jaxpr", "closed_call"))

# ------------------------------------------------------------------------------- call
call_p = core.new_primitive("call", multiple_results=True, higher_order=True)
call_p.call_primitive = True


def _as_closed(rule, higher_order=True):
    """`rule` of closed_call applied to call's open `call_jaxpr` (no constants)."""
    def closed(params):
        return {**params, "call_jaxpr": core.ClosedJaxpr(params["call_jaxpr"], [])}
    if higher_order:
        return lambda tx, *args, **params: rule(tx, *args, **closed(params))
    return lambda *args, **params: rule(*args, **closed(params))


def _call_dce(tx, eqn, used_outputs):
    new, used_in = _closed_dce(tx, eqn.replace(
        params={"call_jaxpr": core.ClosedJaxpr(eqn.params["call_jaxpr"], [])}), used_outputs)
    return new.replace(params={"call_jaxpr": new.params["call_jaxpr"].jaxpr}), used_in


_closed_dce = call_dce("call_jaxpr")
register(call_p, **{k: _as_closed(r, False) for k, r in call_rules("call_jaxpr").items()},
         jvp=_as_closed(inline_call_jvp("call_jaxpr")), batch=_as_closed(_closed_call_batch),
         dce=_call_dce, source=call_source("call_jaxpr", "call"))


def remat_opt(body, consts, primals, n_out, fun_jaxpr_thunk):
    """Bind `remat_opt` for a staged forward rule `body` (ClosedJaxpr without consts:
    `consts + primals -> n_out primal outputs + residuals`, the order a `custom_vjp`
    fwd returns them) -> (primal outputs, residuals). A residual that is one of the
    primal inputs is not a result of the equation (JAX forwards it)."""
    j = body.jaxpr
    nc = len(consts)
    prim_pos = {v: i for i, v in enumerate(j.invars[nc:])}
    res_vars = j.outvars[n_out:]
    fwd = [prim_pos.get(v) if isinstance(v, core.Var) else None for v in res_vars]
    kept = [v for v, f in zip(res_vars, fwd) if f is None]
    fwd_jaxpr = core.ClosedJaxpr(core.Jaxpr([], list(j.invars), kept + list(j.outvars[:n_out]),
                                            j.eqns), list(body.consts))
    outs = bind(remat_opt_p, *consts, *primals, num_consts=nc, num_res=len(kept),
                fwd_jaxpr=fwd_jaxpr, fun_jaxpr_thunk=fun_jaxpr_thunk)
    it = iter(outs[:len(kept)])
    res = [next(it) if f is None else primals[f] for f in fwd]
    return list(outs[len(kept):]), res
