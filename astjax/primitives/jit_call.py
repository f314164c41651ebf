"""`jit`: a jitted function called inside another staged function, kept as one
equation, as JAX 0.10.2 keeps its `jit_p` (`jax/_src/pjit.py`).

`jit(g)` called while `f` is staged binds `jit[name=g jaxpr=...]`: the equation carries
the ClosedJaxpr of `g` (staged once per signature, so every call site of one signature
holds the *same* jaxpr object) and `g`'s name. The printer (`ir.pp_jaxpr`) shows a jaxpr
reached twice once, as `let g = { ... } in` above the program; the lowering emits one
`func.func private @g` per distinct jaxpr and a `func.call` per equation.

Values staged `g` closes over from the enclosing function (outer Tracers) are leading
operands of the equation, as in JAX; concrete constants stay in the ClosedJaxpr. The
params are JAX's pjit params (`jit_params`): per operand `in_shardings` (UNSPECIFIED),
`in_layouts` and `donated_invars` (`jit(g, donate_argnums=...)`), per result
`out_shardings` / `out_layouts`, the `ctx_mesh` it was staged under, `keep_unused`,
`inline` and `compiler_options_kvs`; printed as JAX's `_pjit_pp_rule` prints them
(`name` first, the rest only when not the defaults). The rules below keep the
per-operand ones with their operands (`keep_operands`).

Its rules keep the equation, as JAX's do:

- jvp: `jit` of the JVP jaxpr (primals, nonzero tangents -> outputs, nonzero tangents);
- partial eval (linearize): a known `jit` (known inputs -> known outputs + residuals)
  and an unknown one (residuals + unknown inputs -> unknown outputs); a residual that
  is one of the call's operands or known results is read from there, not returned
  again (`forward_residuals`); under `checkpoint(policy=...)` the policy looks into
  the body (`transforms/remat.py` splits the equation);
- transpose: `jit` of the transposed jaxpr;
- batch: `jit` of the batched jaxpr (batch axes moved to the front);
- dce: the body's unused outputs and then unused operands pruned.

A body with side effects stays one equation (it has their effects, so no pass drops
it); references it takes or creates are discharged with the equation
(`transforms/discharge.py`). Every other interpreter evaluates or inlines the body
(`impl`, the printed source).
"""
from __future__ import annotations

import inspect
import weakref

import numpy as np

from .. import core, sharding_impls
from ..core import Eqn, Var, Zero, bind
from .base import call_dce, call_rules, call_source, matchaxis, register

__all__ = ["jit_p", "bind_jit", "call", "call_name", "keeps_call", "jit_params",
           "keep_operands", "UNSPECIFIED"]

jit_p = core.new_primitive("jit", multiple_results=True, higher_order=True)
jit_p.pp_call = "jaxpr"   # printed `name` first; the body's binders named as the call's


def _shown(params) -> dict:
    """The params JAX's printer shows (`_pjit_pp_rule`): `inline` never; donations,
    layouts, `keep_unused`, the mesh and compiler options only when not the defaults."""
    return {k: v for k, v in params.items() if not (
        k == "inline"
        or (k in ("donated_invars", "compiler_options_kvs") and not any(v))
        or (k == "keep_unused" and not v)
        or (k in ("in_shardings", "out_shardings") and all(s is UNSPECIFIED for s in v))
        or (k in ("in_layouts", "out_layouts") and all(x is None for x in v))
        or (k == "ctx_mesh" and v.empty))}


jit_p.pp_shown = _shown


def call(closed: core.ClosedJaxpr, args, fun, inline, inline_fn, donated=(), **options):
    """The outputs of an inner `jit(fun)` staged as `closed`, called on `args` (those
    whose flag in `donated` is true donated): one `jit` equation (`options`: its
    `keep_unused` and `compiler_options_kvs`), or `inline_fn(closed, args)` (its
    equations re-staged here) with `jit(..., inline=True)` or a body `keeps_call`
    refuses."""
    if inline or not keeps_call(closed):
        return inline_fn(closed, args)
    return bind_jit(closed, args, call_name(fun), donated, options)


def call_name(fun) -> str:
    """The `name` JAX gives the equation: the function's `__name__` (`<lambda>`)."""
    plain = inspect.unwrap(fun) if callable(fun) else fun
    plain = getattr(plain, "func", plain)   # functools.partial
    return getattr(plain, "__name__", None) or type(plain).__name__


_kept: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def keeps_call(closed: core.ClosedJaxpr) -> bool:
    """Whether a staged inner `jit` body becomes one equation: not when it returns a
    mutable reference or closes over an eager one (inlined, as before); references it
    takes as arguments or creates are discharged with the equation (`transforms/discharge.py`:
    their values in, their final values out, as in JAX). A body with
    side effects (a debug print, an io_callback) is one equation, as in JAX: the
    equation has its body's effects (`core.has_effects`), so no pass removes or merges
    it, and the lowered private function makes the calls."""
    j = closed.jaxpr
    r = _kept.get(j)
    if r is None:
        r = _kept[j] = not _refs(j)
    return r


def _refs(j) -> bool:
    return any(isinstance(getattr(v, "aval", None), core.AbstractRef)
               for v in j.constvars + j.outvars)


class UnspecifiedValue:
    """JAX's marker of a layout a `jit` was not given: each entry of a `jit` equation's
    `in_shardings` / `out_shardings` (the operand's or result's own layout)."""
    __slots__ = ()

    def __repr__(self):
        return "UnspecifiedValue"


UNSPECIFIED = UnspecifiedValue()
_NO_MESH = sharding_impls.Mesh(np.empty((), object), ())
# the params a rule re-binding an equation keeps from it (the rest follow the new body)
_CARRIED = ("ctx_mesh", "keep_unused", "inline", "compiler_options_kvs")


def _ctx_mesh():
    """A new `jit` equation's `ctx_mesh`, as JAX's `get_ctx_mesh`: the mesh `set_mesh`
    made current, else the abstract mesh in effect when it has an Explicit axis, else
    an empty Mesh."""
    mesh = sharding_impls.context_mesh()
    if mesh is not None and not mesh.empty:
        return mesh
    if sharding_impls.explicit_meshes[0]:
        abstract = sharding_impls.get_abstract_mesh()
        if not abstract.empty and abstract.explicit_axes:
            return abstract
    return _NO_MESH


def jit_params(jaxpr: core.ClosedJaxpr, name: str, donated=(), like=None) -> dict:
    """JAX's params of a `jit` equation calling `jaxpr`: `donated` a flag per operand
    (or empty: none donated); layouts unspecified (astjax's inner call keeps its
    operands' and results' own); `ctx_mesh`, `keep_unused`, `inline` and
    `compiler_options_kvs` from `like` (an equation's params, or the call's options),
    else the current mesh and JAX's defaults."""
    like = like or {}
    n_in, n_out = len(jaxpr.jaxpr.invars), len(jaxpr.jaxpr.outvars)
    mesh = like.get("ctx_mesh")
    return dict(jaxpr=jaxpr, in_shardings=(UNSPECIFIED,) * n_in,
                out_shardings=(UNSPECIFIED,) * n_out, in_layouts=(None,) * n_in,
                out_layouts=(None,) * n_out,
                donated_invars=tuple(donated) if any(donated) else (False,) * n_in,
                ctx_mesh=_ctx_mesh() if mesh is None else mesh, name=name,
                keep_unused=bool(like.get("keep_unused", False)),
                inline=bool(like.get("inline", False)),
                compiler_options_kvs=tuple(like.get("compiler_options_kvs", ())))


def bind_jit(closed: core.ClosedJaxpr, args, name: str, donated=(), like=None):
    """Bind `jit` of `closed` on `args` (`donated`: a flag per arg, or empty; `like`:
    as `jit_params`'s); Tracer consts (values of an enclosing builder) become leading
    operands, never donated. Returns the outputs."""
    closed, lifted = lift_tracer_consts(closed)
    flags = (False,) * len(lifted) + tuple(donated) if any(donated) else ()
    return bind(jit_p, *lifted, *args, **jit_params(closed, name, flags, like))


def _carried(params) -> dict:
    return {k: params[k] for k in _CARRIED if k in params}


def keep_operands(params, keep, prefix=0) -> dict:
    """`params` for the operands whose `keep` flag is true, after `prefix` new ones
    (residuals: not donated, layouts unspecified) -- DCE, a call split by partial
    evaluation; the results' entries follow `params["jaxpr"]` (the new body). Params
    without `in_shardings` (a `checkpoint`'s) are returned as they are."""
    if "in_shardings" not in params:
        return params
    def fit(key, default):
        return (default,) * prefix + tuple(x for x, k in zip(params[key], keep) if k)
    n_out = len(params["jaxpr"].jaxpr.outvars)
    return dict(params, in_shardings=fit("in_shardings", UNSPECIFIED),
                in_layouts=fit("in_layouts", None), donated_invars=fit("donated_invars", False),
                out_shardings=(UNSPECIFIED,) * n_out, out_layouts=(None,) * n_out)


# Jaxpr -> (its lifted ClosedJaxpr, positions of the lifted consts): one per staging
_lifted: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def lift_tracer_consts(closed: core.ClosedJaxpr):
    """(ClosedJaxpr whose Tracer consts are leading invars, those Tracers); the same
    converted object for the same `closed.jaxpr`, so call sites stay shared."""
    idx = [i for i, c in enumerate(closed.consts) if isinstance(c, core.Tracer)]
    if not idx:
        return closed, []
    j = closed.jaxpr
    hit = _lifted.get(j)
    if hit is None or hit[1] != idx:
        keep = [i for i in range(len(j.constvars)) if i not in idx]
        new = core.ClosedJaxpr(core.Jaxpr([j.constvars[i] for i in keep],
                                          [j.constvars[i] for i in idx] + j.invars,
                                          j.outvars, j.eqns),
                               [closed.consts[i] for i in keep])
        hit = _lifted[j] = (new, idx)
    return hit[0], [closed.consts[i] for i in idx]


def _jit_jvp(tx, primals, tangents, **params):
    jaxpr, donated_invars = params["jaxpr"], params["donated_invars"]
    nz = [not isinstance(t, Zero) for t in tangents]
    jv, out_nz = tx.jvp_jaxpr(jaxpr, nz, instantiate=False)
    # (JAX's: a nonzero tangent is donated with its primal)
    donated = (*donated_invars, *(d for d, z in zip(donated_invars, nz) if z))
    outs = bind_jit(jv, list(primals) + [t for t in tangents if not isinstance(t, Zero)],
                    params["name"], donated, _carried(params))
    n = len(jaxpr.out_avals)
    it = iter(outs[n:])
    return outs[:n], [next(it) if z else Zero(a) for z, a in zip(out_nz, jaxpr.out_avals)]


# known body's Jaxpr -> (it without forwarded residual outputs, how each is forwarded)
_forwards: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def forward_residuals(known: core.ClosedJaxpr, nres: int):
    """(`known` without the residual outputs that are one of its inputs or one of its
    primal outputs, and per residual ("in", i) / ("out", i) / None), as JAX's
    partial evaluation of `jit` forwards them (`_pjit_partial_eval`): the residual is
    the caller's operand or result, not another output of the call. The same pruned
    body for the same `known`, so call sites stay shared."""
    j = known.jaxpr
    hit = _forwards.get(j)   # (None for `known` itself: the value must not hold the key)
    if hit is None or (hit[0] is not None and hit[0].consts is not known.consts):
        n = len(j.outvars) - nres
        ins = {v: i for i, v in enumerate(j.invars)}
        outs = {v: i for i, v in reversed(list(enumerate(j.outvars[:n])))
                if isinstance(v, Var)}
        how = [("in", ins[v]) if v in ins else ("out", outs[v]) if v in outs else None
               for v in j.outvars[n:]]
        pruned = None
        if any(how):
            kept = [v for v, h in zip(j.outvars[n:], how) if h is None]
            pruned = core.ClosedJaxpr(core.Jaxpr(j.constvars, j.invars, j.outvars[:n] + kept,
                                                 j.eqns), known.consts)
        hit = _forwards[j] = (pruned, how)
    return (known if hit[0] is None else hit[0]), hit[1]


def _jit_partial_eval(tx, eqn, in_uk):
    body, name = eqn.params["jaxpr"], eqn.params["name"]
    known, unknown, out_uk, nres = tx.partial_eval_jaxpr(body, in_uk, instantiate=False)
    if any(isinstance(c, core.Tracer) for c in known.consts):
        return [], [eqn], [True] * len(eqn.outvars)   # (not expected: bodies are lifted)
    known, how = forward_residuals(known, nres)
    k_ins = [a for a, u in zip(eqn.invars, in_uk) if not u]
    u_ins = [a for a, u in zip(eqn.invars, in_uk) if u]
    k_out = [v for v, u in zip(eqn.outvars, out_uk) if not u]
    u_out = [v for v, u in zip(eqn.outvars, out_uk) if u]
    avals = unknown.jaxpr.invars[:nres]
    new = [Var(v.aval) for v, h in zip(avals, how) if h is None]
    it = iter(new)
    res = [next(it) if h is None else (k_ins if h[0] == "in" else k_out)[h[1]] for h in how]
    flags, like = eqn.params["donated_invars"], _carried(eqn.params)
    k_eqn = Eqn(jit_p, k_ins, k_out + new, jit_params(
        known, name, [d for d, u in zip(flags, in_uk) if not u], like), eqn.source_info)
    u_eqn = Eqn(jit_p, res + u_ins, u_out, jit_params(
        unknown, name, [False] * len(res) + [d for d, u in zip(flags, in_uk) if u], like),
        eqn.source_info)
    return [k_eqn], [u_eqn] if u_out else [], out_uk


def _jit_transpose(tx, cts, *args, **params):   # (none donated)
    jaxpr = params["jaxpr"]
    lin = [core.is_undefined(a) for a in args]
    zero_cts = [isinstance(c, Zero) for c in cts]
    if all(zero_cts) or not any(lin):
        return [None] * len(args)
    t = tx.transpose_jaxpr(jaxpr, lin, zero_cts)
    nl = [a for a in args if not core.is_undefined(a)]
    outs = bind_jit(t, nl + [c for c in cts if not isinstance(c, Zero)], params["name"],
                    like=_carried(params))
    it = iter(outs)
    return [next(it) if l else None for l in lin]


# builder -> {(body, axis) -> the batched body}: the calls of one body batched the same
# way while one function is staged share one batched body (JAX prints it once)
_batched: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _jit_batch(tx, args, dims, **params):
    jaxpr, donated_invars = params["jaxpr"], params["donated_invars"]
    frame = core.axis_frame()
    args = [matchaxis(x, d, 0, frame.size) if d is not None else x
            for x, d in zip(args, dims)]
    dims = [0 if d is not None else None for d in dims]
    b = core.current_builder()
    memo = _batched.setdefault(b, {}) if b is not None else {}
    key = (id(jaxpr.jaxpr), tuple(dims), frame.size, frame.name)
    hit = memo.get(key)
    if hit is None or hit[0] is not jaxpr.jaxpr:
        hit = (jaxpr.jaxpr, tx.batch_subjaxpr(jaxpr, dims, frame.size, frame.name))
        if not any(isinstance(c, core.Tracer) for c in hit[1][1]):   # (none keeps `b` alive)
            memo[key] = hit
    body, extra, mapped = hit[1]
    donated = (*(False for _ in extra), *donated_invars) if any(donated_invars) else ()
    outs = bind_jit(body, list(extra) + list(args), params["name"], donated, _carried(params))
    return outs, [0 if m else None for m in mapped]


def _jit_lowering(ctx, *args, jaxpr, name, **_):
    return ctx.call_function(name, jaxpr, list(args))


_body_dce = call_dce("jaxpr")


def _jit_dce(tx, eqn, used_outputs):
    new, used_in = _body_dce(tx, eqn, used_outputs)
    return new.replace(params=keep_operands(new.params, used_in)), used_in


register(jit_p, **dict(call_rules("jaxpr"), lowering=_jit_lowering), jvp=_jit_jvp,
         partial_eval=_jit_partial_eval, transpose=_jit_transpose, batch=_jit_batch,
         dce=_jit_dce, source=call_source("jaxpr", "jit", consts=True))
