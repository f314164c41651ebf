"""Automatic differentiation as IR -> IR transforms (Autodidax's shape).

- `jvp_jaxpr(closed, nonzeros, instantiate)`: forward mode. The jaxpr is
  interpreted equation by equation inside a new Builder; each primitive's jvp rule
  (`Primitive.jvp`, written with `lax` functions on Tracers) stages the primal and
  tangent equations. Tangents that are known to be zero are the symbolic `Zero(aval)`
  and never reach the IR. Tangent variables get the naming hint `d<name>`.
- `partial_eval_jaxpr(closed, unknowns, instantiate)`: splits a jaxpr into a
  *known* jaxpr (known inputs -> known outputs + residuals) and an *unknown* one
  (residuals + unknown inputs -> unknown outputs). Applied to a JVP jaxpr with the
  tangents unknown it is `linearize`: the unknown jaxpr is linear in the tangents.
  Control-flow primitives have their own rules (their `partial_eval`, in
  `astjax/primitives/{cond,scan,while_loop}.py`).
- `transpose_jaxpr(closed, linear)`: the backward pass of a linear jaxpr.
  Non-linear equations (those reading no linear variable) are re-staged forward,
  then linear equations are transposed in reverse order, cotangents accumulating
  with `add_any`. Cotangent variables get the hint `ct_<name>`.
- `vjp_jaxpr` / `grad` = jvp + partial eval + transpose, then the cleanups
  (`simplify`, `cse`, `dce`). Equations of the forward part carry
  `SourceInfo.phase == 'forward'`, those of the backward part `'backward'`,
  those of a JVP `'tangent'`.

Integer and boolean values have no tangent space: their tangents are always the
symbolic `Zero` (JAX's float0), and their cotangents are zero.

Reverse mode through `while` with a run-time trip count is in
`astjax/primitives/while_loop.py` (see its docstring and docs/autodiff.md).
"""
from __future__ import annotations

import contextlib
import types

import numpy as np

from astjax import core, dtypes, name_stack
from astjax.core import (Literal, UndefinedPrimal, Var, Zero, bind, differentiable,  # noqa: F401
                         float0, is_undefined)
from astjax.errors import DerivativeNotImplementedError, JAXValueError
from astjax.primitives.base import add_tangents, instantiate, zeros_like_aval  # noqa: F401
from astjax.primitives.untyped_made import staging_untyped

from . import remat
from .dce import dce_closed, dce_jaxpr, pass_memo
from .cse import cse_closed
from .simplify import simplify_closed

# ------------------------------------------------------------------ tangent helpers


def _literal_value(a):
    if a.aval.weak_type:
        return core.WeakConst(a.val)
    return a.val


def read_atom(env, a):
    if isinstance(a, Literal):
        return _literal_value(a)
    return env[a]


def _set_hint(x, hint):
    if hint and isinstance(x, core.Tracer) and isinstance(x._var, Var) and x._var.hint is None:
        b = core.current_builder()
        if b is not None and x.builder is b:
            b.set_name(x, hint)


def tangent_hint(hint):
    return None if not hint else f"d{hint}"


def cotangent_hint(hint):
    if not hint:
        return None
    if hint.startswith("ct_"):
        return hint
    if hint.startswith("d") and len(hint) > 1:
        return f"ct_{hint[1:]}"
    return f"ct_{hint}"

# ------------------------------------------------------------------------------- jvp


def _info(eqn, phase):
    return eqn.source_info.replace(phase=phase)


def jvp_eqn(eqn, primals, tangents):
    """Stage one equation's JVP in the current builder -> (primal outs, tangent outs)."""
    prim = eqn.primitive
    n_out = len(eqn.outvars)
    nonzero = any(not isinstance(t, Zero) for t in tangents)
    if not nonzero or prim.nondiff:
        with core.source_info_context(_info(eqn, "tangent")):
            outs = bind(prim, *primals, **eqn.params)
        outs = outs if prim.multiple_results else [outs]
        return outs, [Zero(v.aval) for v in eqn.outvars]
    rule = core.rule(prim, "jvp", eqn.source_info, DerivativeNotImplementedError, tx=tx)
    # (the rule's constants: JAX types them as the values beside them, unknown here)
    with staging_untyped(eqn.source_info, phase="tangent"):
        pout, tout = rule(primals, tangents, **eqn.params)
    if not prim.multiple_results:
        pout, tout = [pout], [tout]
    tout = [Zero(v.aval) if (t is None or not differentiable(v.aval)) else t
            for t, v in zip(tout, eqn.outvars)]
    assert len(pout) == n_out == len(tout), prim
    return list(pout), tout


def jvp_interpret(jaxpr, consts, primals, tangents):
    """Interpret `jaxpr` on staged primals and tangents (Zero allowed) in the current
    builder -> (primal outs, tangent outs)."""
    penv, tenv = {}, {}
    for v, x in zip(jaxpr.constvars, consts):
        penv[v] = x
    for v, x, t in zip(jaxpr.invars, primals, tangents):
        penv[v] = x
        if not isinstance(t, Zero):
            tenv[v] = t

    def read_t(a):
        if isinstance(a, Literal):
            return Zero(a.aval)
        return tenv.get(a, Zero(a.aval))

    for eqn in jaxpr.eqns:
        ps = [read_atom(penv, a) for a in eqn.invars]
        if eqn.primitive in core.KEY_TYPE_READERS:
            core.type_keys_as(eqn.invars, ps)
        ts = [read_t(a) for a in eqn.invars]
        pout, tout = jvp_eqn(eqn, ps, ts)
        for v, p, t in zip(eqn.outvars, pout, tout):
            penv[v] = p
            _set_hint(p, v.hint)
            if not isinstance(t, Zero):
                tenv[v] = t
                _set_hint(t, tangent_hint(v.hint))
    return ([read_atom(penv, a) for a in jaxpr.outvars],
            [read_t(a) for a in jaxpr.outvars])


def _as_list(x, n):
    if isinstance(x, bool):
        return [x] * n
    return list(x)


@pass_memo("jvp_jaxpr")
def jvp_jaxpr(closed: core.ClosedJaxpr, nonzeros, instantiate=False):
    """-> (ClosedJaxpr (primals, nonzero tangents) -> (primal outs, nonzero tangent
    outs), out_nonzeros). Tangents of non-differentiable avals are never nonzero."""
    jaxpr = closed.jaxpr
    nonzeros = [nz and differentiable(v.aval) for nz, v in zip(nonzeros, jaxpr.invars)]
    inst = _as_list(instantiate, len(jaxpr.outvars))
    out_nz = [None]
    n = len(jaxpr.invars)
    t_avals = [v.aval for v, nz in zip(jaxpr.invars, nonzeros) if nz]
    hints = [v.hint for v in jaxpr.invars] + [tangent_hint(v.hint) for v, nz in
                                              zip(jaxpr.invars, nonzeros) if nz]

    named = (name_stack.transform_name_stack("jvp") if not jvp_jaxpr.nested()
             else contextlib.nullcontext())   # (the API's jvp, not a rule's body)

    def fn(*args):
        primals = list(args[:n])
        it = iter(args[n:])
        tangents = [next(it) if nz else Zero(v.aval) for v, nz in zip(jaxpr.invars, nonzeros)]
        with named:
            pout, tout = jvp_interpret(jaxpr, closed.consts, primals, tangents)
        tout = [instantiate_out(t, i, a.aval) for t, i, a in zip(tout, inst, jaxpr.outvars)]
        out_nz[0] = [not isinstance(t, Zero) for t in tout]
        return pout + [t for t in tout if not isinstance(t, Zero)]

    cj = core.stage(fn, [v.aval for v in jaxpr.invars] + t_avals, hints)
    _unmark_primal(cj.jaxpr, set(cj.jaxpr.invars[n:]))
    return cj, out_nz[0]


def _unmark_primal(jaxpr, tangent_vars):
    """Equations of a JVP jaxpr that read no tangent are the primal computation: they
    keep the phase of the equation they came from."""
    for eqn in jaxpr.eqns:
        if any(isinstance(a, Var) and a in tangent_vars for a in eqn.invars):
            tangent_vars.update(eqn.outvars)
        elif eqn.source_info.phase == "tangent":
            eqn.source_info = eqn.source_info.replace(phase=None)


def instantiate_out(t, inst, aval):
    if inst and isinstance(t, Zero) and differentiable(aval):
        with staging_untyped():     # (JAX types it as its primal: unknown here)
            return zeros_like_aval(aval)
    return t

# -------------------------------------------------------------------- partial eval


@pass_memo("partial_eval_jaxpr")
def partial_eval_jaxpr(closed: core.ClosedJaxpr, unknowns, instantiate=False):
    """Split `closed` by which inputs are unknown.

    Returns (known, unknown, out_unknowns, num_res):
      known:   ClosedJaxpr  known inputs -> known outputs + residuals
      unknown: ClosedJaxpr  residuals + unknown inputs -> unknown outputs
    """
    jaxpr = closed.jaxpr
    uk: set = {v for v, u in zip(jaxpr.invars, unknowns) if u}
    known_eqns, unknown_eqns = [], []
    for eqn in jaxpr.eqns:
        in_uk = [isinstance(a, Var) and a in uk for a in eqn.invars]
        if not any(in_uk):
            known_eqns.append(eqn)
            continue
        rule = core.rule(eqn.primitive, "partial_eval", tx=tx, optional=True)
        if rule is not None:
            k_eqns, u_eqns, out_uk = rule(eqn, in_uk)
        else:
            k_eqns, u_eqns, out_uk = [], [eqn], [True] * len(eqn.outvars)
        known_eqns += k_eqns
        unknown_eqns += u_eqns
        uk.update(v for v, u in zip(eqn.outvars, out_uk) if u)
    inst = _as_list(instantiate, len(jaxpr.outvars))
    out_uk = [(isinstance(a, Var) and a in uk) or i for a, i in zip(jaxpr.outvars, inst)]
    # residuals: known variables the unknown side reads
    res, seen = [], set()
    uk_invars = [v for v, u in zip(jaxpr.invars, unknowns) if u]
    for a in [a for e in unknown_eqns for a in e.invars] + [
            a for a, u in zip(jaxpr.outvars, out_uk) if u]:
        if isinstance(a, Var) and a not in uk and a not in seen:
            seen.add(a)
            res.append(a)
    known = core.Jaxpr(jaxpr.constvars, [v for v, u in zip(jaxpr.invars, unknowns) if not u],
                       [a for a, u in zip(jaxpr.outvars, out_uk) if not u] + res, known_eqns)
    # the unknown jaxpr gets fresh residual binders (a Var is bound in one jaxpr only)
    fresh = {v: Var(v.aval, v.hint) for v in res}
    unknown = core.Jaxpr([], [fresh[v] for v in res] + uk_invars,
                         [a for a, u in zip(jaxpr.outvars, out_uk) if u],
                         [e.replace(invars=[fresh.get(a, a) if isinstance(a, Var) else a
                                            for a in e.invars]) for e in unknown_eqns])
    unknown.outvars = [fresh.get(a, a) if isinstance(a, Var) else a for a in unknown.outvars]
    if not partial_eval_jaxpr.nested():  # the outermost DCE prunes the nested bodies too
        known, _ = dce_jaxpr(known)
    return (core.ClosedJaxpr(known, closed.consts), core.ClosedJaxpr(unknown, []), out_uk,
            len(res))

# ------------------------------------------------------------------------ transpose


def backward_pass(jaxpr, consts, linear, args, cts_out, transform=False):
    """Transpose `jaxpr` in the current builder. `linear[i]` marks invar i as linear
    (its value in `args` is ignored). `cts_out` may hold Zero. Returns a cotangent
    (or Zero) per linear invar. `transform`: the transposed equations are named
    inside `transpose(...)` (the API's transposition; a rule's body is not)."""
    with (name_stack.transform_name_stack("transpose") if transform
          else contextlib.nullcontext()):
        return _backward_pass(jaxpr, consts, linear, args, cts_out)


def _backward_pass(jaxpr, consts, linear, args, cts_out):
    env: dict = {}
    lin: set = set()
    for v, c in zip(jaxpr.constvars, consts):
        env[v] = c
    for v, lv, x in zip(jaxpr.invars, linear, args):
        if lv:
            lin.add(v)
        else:
            env[v] = x
    lin_eqns = []
    for eqn in jaxpr.eqns:
        if any(isinstance(a, Var) and a in lin for a in eqn.invars):
            lin.update(eqn.outvars)
            lin_eqns.append(eqn)
        else:
            with core.source_info_context(_info(eqn, "backward")):
                outs = bind(eqn.primitive, *_operands(env, eqn), **eqn.params)
            outs = outs if eqn.primitive.multiple_results else [outs]
            for v, o in zip(eqn.outvars, outs):
                env[v] = o
                _set_hint(o, v.hint)
    ct_env: dict = {}

    def add_ct(v, ct):
        if isinstance(ct, Zero) or ct is None:
            return
        prev = ct_env.get(v)
        new = ct if prev is None else add_tangents(prev, ct)
        ct_env[v] = new
        _set_hint(new, cotangent_hint(v.hint))

    def take_ct(v):
        return ct_env.pop(v, None)

    for a, ct in zip(jaxpr.outvars, cts_out):
        if isinstance(a, Var) and a in lin:
            add_ct(a, ct)
    # JAX transposes no equation when every cotangent in is zero, else every one whose
    # result the outputs use (after its DCE): a custom_vjp's bwd runs on zeros then
    live = _live_at_zero(jaxpr, lin_eqns) if ct_env else ()
    for eqn in reversed(lin_eqns):
        cts = [take_ct(v) for v in eqn.outvars]
        if all(c is None for c in cts) and id(eqn) not in live:
            continue
        cts = [Zero(v.aval) if c is None else c for c, v in zip(cts, eqn.outvars)]
        ins = [UndefinedPrimal(a.aval) if isinstance(a, Var) and a in lin
               else read_atom(env, a) for a in eqn.invars]
        rule = core.rule(eqn.primitive, "transpose", tx=tx, optional=True)
        if rule is None:  # JAX: NotImplementedError
            reason = eqn.primitive.unsupported.get("transpose")
            raise DerivativeNotImplementedError(
                f"reverse-mode differentiation needs the transpose rule of "
                f"`{eqn.primitive.name}` (it is applied to a tangent here), and it has none"
                + (f": {reason}" if reason else ""), loc=eqn.source_info,
                hint="give the primitive a transpose rule (ad.primitive_transposes[p] = ...), "
                     "or use forward mode (jvp / jacfwd)")
        with core.source_info_context(_info(eqn, "backward")):
            cts_in = rule(cts if eqn.primitive.multiple_results else cts[0], *ins, **eqn.params)
        for a, x, ct in zip(eqn.invars, ins, cts_in):
            if isinstance(x, UndefinedPrimal) and ct is not None:
                _check_ct_memory(x.aval, ct, eqn)
                with _compute_type_of(eqn):   # (an add_any made here: in eqn's block)
                    add_ct(a, ct)
    outs = [take_ct(v) if lv else None for v, lv in zip(jaxpr.invars, linear)]
    return [Zero(v.aval) if lv and ct is None else ct
            for v, ct, lv in zip(jaxpr.invars, outs, linear)]


def _live_at_zero(jaxpr, lin_eqns) -> set:
    """The ids of the linear equations that are transposed even with no cotangent in
    (`_transposed_at_zero`) and whose results reach `jaxpr`'s outputs through linear
    equations (those JAX's DCE keeps)."""
    used = {a for a in jaxpr.outvars if isinstance(a, Var)}
    live = set()
    for eqn in reversed(lin_eqns):
        if any(v in used for v in eqn.outvars):
            used.update(a for a in eqn.invars if isinstance(a, Var))
            if _transposed_at_zero(eqn):
                live.add(id(eqn))
    return live


def _transposed_at_zero(eqn) -> bool:
    """Whether `eqn`, given zero cotangents only, can still give nonzero ones, so it is
    transposed as JAX transposes it, not skipped (its primitive's `transposed_at_zero`:
    a custom_vjp's linear part runs the user's bwd on zeros; a scan, whose carry's zero
    cotangent is instantiated, when its body has such an equation). Every other
    equation gives zero for zero (JAX's jit, cond and checkpoint transposes skip an
    all-zero body)."""
    rule = eqn.primitive.transposed_at_zero
    return rule(eqn.params, _transposed_at_zero) if callable(rule) else rule


def _compute_type_of(eqn):
    """While the cotangents `eqn`'s transpose gives are accumulated: the equations made
    (`add_any`) are staged under `eqn`'s `compute_on` type, as JAX accumulates them in
    the equation's context."""
    ctype = getattr(eqn.source_info, "compute_type", None)
    ns = eqn.source_info.name_stack   # (and named as JAX names them: in eqn's scopes)
    if ctype is None and not ns:
        return contextlib.nullcontext()
    return core.source_info_context(core.current_source_info().replace(compute_type=ctype,
                                                                       name_stack=ns))


def _check_ct_memory(aval, ct, eqn):
    """JAX's check of a cotangent's type against its primal's, as far as astjax's
    rules can break it: the memory space (a device value's cotangent left in host
    memory by a transposed `device_put`: JAX's ValueError)."""
    ct_aval = ct.aval if isinstance(ct, (Zero, core.Tracer)) else core.get_aval(ct)
    if ct_aval.memory_space is not aval.memory_space:
        raise JAXValueError(f"Expected cotangent type {aval._long()} but got "
                            f"{ct_aval._long()}", loc=eqn.source_info,
                            hint="put the value back where it came from before it is "
                                 "differentiated, or differentiate with respect to the "
                                 "value in the other memory")


@pass_memo("transpose_jaxpr")   # (a body two `jit` calls share: transposed once)
def transpose_jaxpr(closed: core.ClosedJaxpr, linear, zero_cts=None):
    """-> ClosedJaxpr (non-linear inputs, cotangents of the outputs [those not in
    zero_cts]) -> cotangents of the linear inputs (zeros instantiated)."""
    jaxpr = closed.jaxpr
    nl_avals = [v.aval for v, lv in zip(jaxpr.invars, linear) if not lv]
    zero_cts = zero_cts or [False] * len(jaxpr.outvars)
    ct_avals = [a.aval for a, z in zip(jaxpr.outvars, zero_cts) if not z]
    n_nl = len(nl_avals)
    hints = [v.hint for v, lv in zip(jaxpr.invars, linear) if not lv] + [
        cotangent_hint(a.hint) if isinstance(a, Var) else None
        for a, z in zip(jaxpr.outvars, zero_cts) if not z]

    top = not transpose_jaxpr.nested()   # (the API's transposition, not a rule's body)

    def fn(*args):
        it = iter(args[:n_nl])
        full = [None if lv else next(it) for lv in linear]
        cit = iter(args[n_nl:])
        cts = [Zero(a.aval) if z else next(cit) for a, z in zip(jaxpr.outvars, zero_cts)]
        res = backward_pass(jaxpr, closed.consts, linear, full, cts, transform=top)
        return [instantiate(ct, v.aval) for ct, v, lv in zip(res, jaxpr.invars, linear) if lv]

    return core.stage(fn, nl_avals + ct_avals, hints)

# ----------------------------------------------------------------------- inlining


def _operands(env, eqn):
    """An equation's operands read from `env`, a key primitive's typed as its keys."""
    ins = [read_atom(env, a) for a in eqn.invars]
    if eqn.primitive in core.KEY_TYPE_READERS:
        core.type_keys_as(eqn.invars, ins)
    return ins


def inline(closed_or_jaxpr, args, consts=None, phase=None):
    """Re-stage a jaxpr into the current builder, marking equations with `phase`."""
    if isinstance(closed_or_jaxpr, core.ClosedJaxpr):
        jaxpr, consts = closed_or_jaxpr.jaxpr, closed_or_jaxpr.consts
    else:
        jaxpr = closed_or_jaxpr
        consts = consts or []
    env = {}
    for v, c in zip(jaxpr.constvars, consts):
        env[v] = c
    for v, a in zip(jaxpr.invars, args):
        env[v] = a
        _set_hint(a, v.hint)  # an unnamed outer value takes the inner argument's name
    for eqn in jaxpr.eqns:
        info = eqn.source_info
        if phase is not None and info.phase in (None, "tangent"):
            info = _info(eqn, phase)
        with core.source_info_context(info):
            outs = bind(eqn.primitive, *_operands(env, eqn), **eqn.params)
        outs = outs if eqn.primitive.multiple_results else [outs]
        for v, o in zip(eqn.outvars, outs):
            env[v] = o
            _set_hint(o, v.hint)
    return [read_atom(env, a) for a in jaxpr.outvars]

# ------------------------------------------------------------- composite transforms


def linearize_jaxpr(closed, nonzeros):
    """-> (known, linear, out_nonzeros, num_res): known: primals -> primal outs +
    residuals; linear: residuals + nonzero tangents -> tangent outs (all outputs,
    zeros instantiated for differentiable ones; non-differentiable outs dropped)."""
    n = len(closed.jaxpr.invars)
    n_out = len(closed.jaxpr.outvars)
    jvp, out_nz = jvp_jaxpr(closed, nonzeros, instantiate=True)
    n_t = len(jvp.jaxpr.invars) - n
    known, lin, out_uk, nres = partial_eval_jaxpr(
        jvp, [False] * n + [True] * n_t, instantiate=[False] * n_out + [True] * sum(out_nz))
    assert not any(out_uk[:n_out]), "primal outputs must be known"
    return known, lin, out_nz, nres


def vjp_jaxpr(closed, nonzeros):
    """-> (fwd, bwd, out_nonzeros, num_res): fwd: primals -> primal outs + residuals;
    bwd: residuals + cotangents of differentiable outs -> cotangents of the
    nonzero inputs."""
    known, lin, out_nz, nres = linearize_jaxpr(closed, nonzeros)
    n_t = len(lin.jaxpr.invars) - nres
    bwd = transpose_jaxpr(lin, [False] * nres + [True] * n_t)
    return known, bwd, out_nz, nres


def cleanup(closed: core.ClosedJaxpr) -> core.ClosedJaxpr:
    """simplify + CSE + DCE to a fixpoint (bounded). A program staged inside another
    (a `grad` under an outer `grad`, `jit`, ...) is not CSE'd here: an outer reverse
    mode would sum the cotangents of merged equations in another order than JAX's
    (which merges none), so another second derivative's bits; the outermost program's
    cleanup, or XLA's, merges them."""
    cse = core.current_builder() is None
    for _ in range(3):
        n = _count_eqns(closed)
        closed = simplify_closed(closed)
        closed = dce_closed(cse_closed(closed) if cse else closed)
        if _count_eqns(closed) == n:
            break
    return closed


def _count_eqns(jaxpr):
    return sum(1 for _ in core.all_eqns(jaxpr))

# What the rules of higher-order primitives receive as `tx` (see core.Primitive).
tx = types.SimpleNamespace(jvp_jaxpr=jvp_jaxpr, partial_eval_jaxpr=partial_eval_jaxpr,
                           transpose_jaxpr=transpose_jaxpr, dce_jaxpr=dce_jaxpr, inline=inline,
                           split_checkpoint=lambda eqn, unknowns, policy: (
                               remat.split_checkpoint(eqn, unknowns, policy, tx)))

