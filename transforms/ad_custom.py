"""AD rules of the autodiff primitives (`primitives.ad_prims`): stop_gradient,
custom_jvp_call, custom_vjp_call / custom_lin, checkpoint."""
from __future__ import annotations

from astjax import core, tree_util
from astjax.core import Eqn, Var, bind
from astjax.primitives.ad_prims import (checkpoint_p, custom_jvp_call_p, custom_lin_p,
                                        custom_vjp_call_p, stop_gradient_p)

from .ad import (Zero, inline, instantiate, is_undefined, jvp_jaxpr, partial_eval_jaxpr,
                 partial_eval_rules, transpose_jaxpr, differentiable)
from .dce import dce_jaxpr, dce_rules

# ---- stop_gradient ----------------------------------------------------------------


def _stop_gradient_jvp(primals, tangents):
    out = bind(stop_gradient_p, *primals)
    return out, Zero(core.get_aval(out))


core.jvp_rules[stop_gradient_p] = _stop_gradient_jvp

# ---- custom_jvp_call ----------------------------------------------------------------


def _custom_jvp_jvp(primals, tangents, *, call_jaxpr, jvp, num_consts, symbolic_zeros=False,
                    **_):
    consts, args = primals[:num_consts], primals[num_consts:]
    ts = [instantiate(t) if differentiable(core.get_aval(p)) else instantiate(t)
          for t, p in zip(tangents[num_consts:], args)]
    p_out, t_out = jvp(list(args), ts)
    return list(p_out), [Zero(core.get_aval(p)) if not differentiable(core.get_aval(p)) else t
                         for p, t in zip(p_out, t_out)]


core.jvp_rules[custom_jvp_call_p] = _custom_jvp_jvp

# ---- custom_vjp_call / custom_lin -----------------------------------------------------


def _custom_vjp_jvp(primals, tangents, *, call_jaxpr, fwd, bwd, num_consts, out_tree=None, **_):
    args = primals[num_consts:]
    outs, res = fwd(list(args))
    ts = [instantiate(t) for t in tangents[num_consts:]]
    out_avals = tuple(core.get_aval(o).strip_weak_type() for o in outs)
    lin = bind(custom_lin_p, *res, *ts, num_res=len(res), bwd=bwd, out_avals=out_avals)
    return list(outs), [t if differentiable(a) else Zero(a) for t, a in zip(lin, out_avals)]


def _custom_lin_transpose(cts, *args, num_res, bwd, out_avals):
    res = args[:num_res]
    cts = [instantiate(c, a) for c, a in zip(cts, out_avals)]
    cts_in = bwd(list(res), cts)
    return [None] * num_res + [None if (c is None or isinstance(c, Zero)) else c
                               for c in cts_in]


core.jvp_rules[custom_vjp_call_p] = _custom_vjp_jvp
core.transpose_rules[custom_lin_p] = _custom_lin_transpose
core.linear_primitives.add(custom_lin_p)

# ---- checkpoint (remat) ---------------------------------------------------------------


def _remat_jvp(primals, tangents, *, jaxpr, prevent_cse=True, differentiated=False,
               policy=None):
    nz = [not isinstance(t, Zero) for t in tangents]
    jv, out_nz = jvp_jaxpr(jaxpr, nz, instantiate=False)
    assert not jv.consts or True
    from astjax.core import split_consts as _no_consts
    body, extra = _no_consts(jv)
    outs = bind(checkpoint_p, *extra, *primals, *[t for t in tangents if not isinstance(t, Zero)],
                jaxpr=body, prevent_cse=prevent_cse, differentiated=True, policy=policy)
    n = len(jaxpr.out_avals)
    it = iter(outs[n:])
    return outs[:n], [next(it) if z else Zero(a) for z, a in zip(out_nz, jaxpr.out_avals)]


def _remat_partial_eval(eqn, in_uk):
    jaxpr = eqn.params["jaxpr"]
    known, _, out_uk, nres = partial_eval_jaxpr(jaxpr, in_uk, instantiate=False)
    kj = known.jaxpr
    kj = core.Jaxpr(kj.constvars, kj.invars, kj.outvars[:len(kj.outvars) - nres], kj.eqns)
    kj, _ = dce_jaxpr(kj)
    if known.consts:
        return [], [eqn], [True] * len(eqn.outvars)
    k_eqn = Eqn(checkpoint_p, [a for a, u in zip(eqn.invars, in_uk) if not u],
                [v for v, u in zip(eqn.outvars, out_uk) if not u],
                dict(eqn.params, jaxpr=core.ClosedJaxpr(kj, [])), eqn.source_info)
    # the unknown side recomputes everything (that is the point of checkpoint)
    u_eqn = eqn.replace(outvars=[v if u else Var(v.aval) for v, u in zip(eqn.outvars, out_uk)])
    return [k_eqn], [u_eqn], out_uk


def _remat_transpose(cts, *args, jaxpr, **_):
    lin = [is_undefined(a) for a in args]
    zero_cts = [isinstance(c, Zero) for c in cts]
    bt = transpose_jaxpr(jaxpr, lin, zero_cts)
    outs = inline(bt, [a for a in args if not is_undefined(a)]
                  + [c for c in cts if not isinstance(c, Zero)])
    it = iter(outs)
    return [next(it) if l else None for l in lin]


def _remat_dce(eqn, used_outputs):
    jaxpr = eqn.params["jaxpr"]
    j, used_in = dce_jaxpr(jaxpr.jaxpr, used_outputs, prune_invars=True)
    new = eqn.replace(invars=[a for a, u in zip(eqn.invars, used_in) if u],
                      outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u],
                      params=dict(eqn.params, jaxpr=core.ClosedJaxpr(j, jaxpr.consts)))
    return new, used_in


core.jvp_rules[checkpoint_p] = _remat_jvp
partial_eval_rules[checkpoint_p] = _remat_partial_eval
core.transpose_rules[checkpoint_p] = _remat_transpose
core.linear_primitives.add(checkpoint_p)
dce_rules[checkpoint_p] = _remat_dce

# ---- batching rules of the autodiff primitives ------------------------------------


def _batching():
    from . import batching
    return batching


def _sg_batch(args, dims):
    return bind(stop_gradient_p, args[0]), dims[0]


def _call_batch(p, key):
    def rule(args, dims, **params):
        b = _batching()
        frame = b.axis_frame()
        closed = params[key]
        body, consts, mapped = b.batch_subjaxpr(closed, list(dims), frame.size, frame.name)
        new = dict(params)
        new[key] = body
        if "num_consts" in new:
            new["num_consts"] = params["num_consts"] + len(consts)
        outs = bind(p, *consts, *args, **new)
        return outs, [0 if m else b.not_mapped for m in mapped]
    return rule


core.batch_rules[stop_gradient_p] = _sg_batch
core.batch_rules[checkpoint_p] = _call_batch(checkpoint_p, "jaxpr")
core.batch_rules[custom_jvp_call_p] = _call_batch(custom_jvp_call_p, "call_jaxpr")
core.unsupported["batch"][custom_vjp_call_p] = ("vmap of a custom_vjp function is not "
                                                "implemented yet")
core.unsupported["batch"][custom_lin_p] = "custom_lin only appears inside linearize"
