"""`jit`: a jitted function called inside another staged function, kept as one
equation, as JAX 0.10.2 keeps its `jit_p` (`jax/_src/pjit.py`).

`jit(g)` called while `f` is staged binds `jit[name=g jaxpr=...]`: the equation carries
the ClosedJaxpr of `g` (staged once per signature, so every call site of one signature
holds the *same* jaxpr object) and `g`'s name. The printer (`ir.pp_jaxpr`) shows a jaxpr
reached twice once, as `let g = { ... } in` above the program; the lowering emits one
`func.func private @g` per distinct jaxpr and a `func.call` per equation.

Values staged `g` closes over from the enclosing function (outer Tracers) are leading
operands of the equation, as in JAX; concrete constants stay in the ClosedJaxpr. A
`jit(g, donate_argnums=...)` adds `donated_invars` (a flag per operand, printed after
`name` as JAX prints it, and only when one is true); the rules below keep it with
their operands.

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

from .. import core
from ..core import Eqn, Var, Zero, bind
from .base import call_dce, call_rules, call_source, matchaxis, register

__all__ = ["jit_p", "bind_jit", "call", "call_name", "keeps_call", "donation", "keep_donated"]

jit_p = core.new_primitive("jit", multiple_results=True, higher_order=True)
jit_p.pp_call = "jaxpr"   # printed `name` first; the body's binders named as the call's


def call(closed: core.ClosedJaxpr, args, fun, inline, inline_fn, donated=()):
    """The outputs of an inner `jit(fun)` staged as `closed`, called on `args` (those
    whose flag in `donated` is true donated): one `jit` equation, or
    `inline_fn(closed, args)` (its equations re-staged here) with `jit(..., inline=True)`
    or a body `keeps_call` refuses."""
    if inline or not keeps_call(closed):
        return inline_fn(closed, args)
    return bind_jit(closed, args, call_name(fun), donated)


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


def bind_jit(closed: core.ClosedJaxpr, args, name: str, donated=()):
    """Bind `jit` of `closed` on `args` (`donated`: a flag per arg, or empty); Tracer
    consts (values of an enclosing builder) become leading operands, never donated.
    Returns the outputs."""
    closed, lifted = lift_tracer_consts(closed)
    flags = (False,) * len(lifted) + tuple(donated) if any(donated) else ()
    return bind(jit_p, *lifted, *args, jaxpr=closed, name=name, **donation(flags))


def donation(flags) -> dict:
    """The `donated_invars` param for per-operand `flags`: present only when one is
    true (JAX's printer leaves out an all-false one; astjax leaves out the param)."""
    return {"donated_invars": tuple(flags)} if any(flags) else {}


def donated_flags(params, n: int) -> tuple:
    """A `jit` equation's donation flags for its `n` operands."""
    return params.get("donated_invars") or (False,) * n


def keep_donated(params, keep, prefix=0) -> dict:
    """`params` for the operands whose `keep` flag is true, after `prefix` new ones
    (residuals: not donated) -- DCE, a call split by partial evaluation."""
    flags = [False] * prefix + [d for d, k in zip(donated_flags(params, len(keep)), keep) if k]
    return {k: v for k, v in params.items() if k != "donated_invars"} | donation(flags)


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


def _jit_jvp(tx, primals, tangents, *, jaxpr, name, donated_invars=()):
    nz = [not isinstance(t, Zero) for t in tangents]
    jv, out_nz = tx.jvp_jaxpr(jaxpr, nz, instantiate=False)
    # (JAX's: a nonzero tangent is donated with its primal)
    donated = (*donated_invars, *(d for d, z in zip(donated_invars, nz) if z))
    outs = bind_jit(jv, list(primals) + [t for t in tangents if not isinstance(t, Zero)], name,
                    donated)
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
    flags = donated_flags(eqn.params, len(in_uk))
    k_eqn = Eqn(jit_p, k_ins, k_out + new, dict(jaxpr=known, name=name, **donation(
        [d for d, u in zip(flags, in_uk) if not u])), eqn.source_info)
    u_eqn = Eqn(jit_p, res + u_ins, u_out, dict(jaxpr=unknown, name=name, **donation(
        [False] * len(res) + [d for d, u in zip(flags, in_uk) if u])), eqn.source_info)
    return [k_eqn], [u_eqn] if u_out else [], out_uk


def _jit_transpose(tx, cts, *args, jaxpr, name, donated_invars=()):   # (none donated)
    lin = [core.is_undefined(a) for a in args]
    zero_cts = [isinstance(c, Zero) for c in cts]
    if all(zero_cts) or not any(lin):
        return [None] * len(args)
    t = tx.transpose_jaxpr(jaxpr, lin, zero_cts)
    nl = [a for a in args if not core.is_undefined(a)]
    outs = bind_jit(t, nl + [c for c in cts if not isinstance(c, Zero)], name)
    it = iter(outs)
    return [next(it) if l else None for l in lin]


# builder -> {(body, axis) -> the batched body}: the calls of one body batched the same
# way while one function is staged share one batched body (JAX prints it once)
_batched: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _jit_batch(tx, args, dims, *, jaxpr, name, donated_invars=()):
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
    outs = bind_jit(body, list(extra) + list(args), name, donated)
    return outs, [0 if m else None for m in mapped]


def _jit_lowering(ctx, *args, jaxpr, name, donated_invars=()):
    return ctx.call_function(name, jaxpr, list(args))


_body_dce = call_dce("jaxpr")


def _jit_dce(tx, eqn, used_outputs):
    new, used_in = _body_dce(tx, eqn, used_outputs)
    return new.replace(params=keep_donated(new.params, used_in)), used_in


register(jit_p, **dict(call_rules("jaxpr"), lowering=_jit_lowering), jvp=_jit_jvp,
         partial_eval=_jit_partial_eval, transpose=_jit_transpose, batch=_jit_batch,
         dce=_jit_dce, source=call_source("jaxpr", "jit", consts=True))
