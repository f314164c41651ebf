"""Partial evaluation driven by a rematerialization policy: how `checkpoint(f,
policy=p)` decides, equation by equation, what the backward pass reads from the
forward pass and what it computes again.

`partial_eval_jaxpr_custom(closed, unknowns, policy, tx)` splits a jaxpr (the JVP of a
checkpointed function, its tangents unknown) into

- a *known* jaxpr: known inputs -> known outputs + residuals, and
- a *staged* jaxpr: residuals + inputs -> outputs available to the unknown side
  (every unknown output, and the known ones it recomputes).

An equation reading only known values is asked about: `policy(prim, *avals,
**params)` (as JAX calls it) answers a bool, `Saveable`, `Recompute` or
`Offloadable(src, dst)`. A saved equation stays on the known side and its outputs,
when the unknown side needs them, become residuals; a recomputed one is copied to the
staged side as well, so only its inputs are residuals. Effectful equations are never
recomputed, except debug callbacks and prints (JAX's rule: they run again with the
recomputation unless the policy saves them and an input is not available there). An offloaded one stays on the known side, its outputs copied to memory
`dst` by a `device_put` there (the copies are the residuals, typed `f32<host>[...]`
for `pinned_host`), and the staged side starts by copying them back to `src`, as JAX
does.

`split_checkpoint(eqn, unknowns, policy, tx)` splits one `checkpoint` equation that
way into a known and a staged `checkpoint` equation: the `checkpoint` primitive's
partial-evaluation rule calls it with the equation's own policy (through the AD pass's
`tx`). A `checkpoint` nested in the body is split by the same (outer) policy, as JAX's
rule for its `remat` primitive does; its own policy decides again when the staged part
is transposed; an inner `jit` is split by the policy too, into a known and a staged
`jit` equation. Other higher-order
equations (`scan`, `cond`, `while`, custom derivatives) reading an unknown value are
split by their own `partial_eval` rule, the known part then asked about as a whole; a
`scan` whose inputs are all known is saved or recomputed whole (JAX looks into its
body with the policy).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from astjax import core
from astjax.core import Eqn, Var
from astjax.errors import ArgumentTypeError
from astjax.ir import in_memory_space
from astjax.memory import kind_to_space
from astjax.primitives.callbacks import debug_callback_p
from astjax.primitives.custom_derivatives import body_of, checkpoint_p
from astjax.primitives.debug_print import debug_print_p
from astjax.primitives.device_put import ArrayCopySemantics, device_put_p
from astjax.primitives.jit_call import jit_p, keep_operands

_DEBUG_CALLBACKS = (debug_callback_p, debug_print_p)

__all__ = ["Saveable", "Recompute", "Offloadable", "partial_eval_jaxpr_custom",
           "split_checkpoint", "policy_case"]


class SaveableType:
    """The type of `Saveable`: a policy's answer "keep this value for the backward
    pass"."""

    def __repr__(self):
        return "Saveable"


class RecomputeType:
    """The type of `Recompute`: a policy's answer "compute this value again in the
    backward pass"."""

    def __repr__(self):
        return "Recompute"


Saveable = SaveableType()
Recompute = RecomputeType()


class Offloadable(NamedTuple):
    """A policy's answer "keep this value, moved from memory kind `src` to `dst` until
    the backward pass" (e.g. `Offloadable("device", "pinned_host")`)."""
    src: str
    dst: str


def policy_case(policy, eqn):
    """`Saveable`, `Recompute` or an `Offloadable` for the known equation `eqn`."""
    if policy is None:
        return Recompute
    case = policy(eqn.primitive, *[a.aval for a in eqn.invars], **eqn.params)
    if isinstance(case, (bool, np.bool_)):
        return Saveable if case else Recompute
    if isinstance(case, (SaveableType, RecomputeType, Offloadable)):
        return case
    hint = ("return an instance, `Offloadable(src, dst)`, not the class"
            if case is Offloadable else
            "return True/False, or Saveable, Recompute or Offloadable(src, dst) "
            "from jax.ad_checkpoint")
    raise ArgumentTypeError(
        f"a remat policy must return a bool or `ad_checkpoint.Recompute`, "
        f"`ad_checkpoint.Saveable` or `ad_checkpoint.Offloadable(...)`; "
        f"for `{eqn.primitive.name}` it returned {case!r} of type {type(case).__name__}",
        loc=eqn.source_info, hint=hint)


def partial_eval_jaxpr_custom(closed: core.ClosedJaxpr, unknowns, policy, tx, inst=None):
    """Split `closed` by `unknowns` (its unknown inputs) and `policy`.

    `inst[i]` tells whether input i is available to the staged side (default: all).
    Returns (known, staged, out_unknowns, out_inst, num_res):
      known:  Jaxpr  known inputs -> known outputs + num_res residuals
      staged: Jaxpr  residuals + available inputs -> the outputs marked in out_inst
    Both share `closed`'s constvars; the staged jaxpr binds fresh variables."""
    jaxpr = closed.jaxpr
    inst = [True] * len(jaxpr.invars) if inst is None else list(inst)
    env: dict = {}              # var -> (unknown, available to the staged side)
    for v, u, i in zip(jaxpr.invars, unknowns, inst):
        env[v] = (bool(u), bool(u) or bool(i))
    for v in jaxpr.constvars:
        env[v] = (False, True)
    residuals: dict = {}        # ordered set of known values the staged side reads
    known_eqns, staged_eqns = [], []

    def read(a):
        return env[a] if isinstance(a, Var) else (False, True)

    def need(atoms):
        for a in atoms:
            if isinstance(a, Var) and not read(a)[1]:
                residuals[a] = None

    def add_known(eqn):
        known_eqns.append(eqn)
        if eqn.primitive in _DEBUG_CALLBACKS:   # (JAX's rule: run again in the recomputation
            # unless the policy saves it and one of its inputs is not available there)
            recompute = isinstance(policy_case(policy, eqn), RecomputeType)
            case = Recompute if recompute or all(read(a)[1] for a in eqn.invars) else Saveable
        else:
            case = Saveable if core.has_effects(eqn) else policy_case(policy, eqn)
        if isinstance(case, Offloadable):
            offload, resvars, reload = _offload(eqn, case)
            known_eqns.append(offload)
            staged_eqns.append(reload)
            for r in resvars:
                env[r] = (False, True)
                residuals[r] = None
            for v in eqn.outvars:
                env[v] = (False, True)
            return
        if isinstance(case, RecomputeType):
            need(eqn.invars)
            staged_eqns.append(eqn)
        for v in eqn.outvars:
            env[v] = (False, isinstance(case, RecomputeType))

    def add_staged(eqn):
        need(eqn.invars)
        outs = [Var(v.aval, v.hint) if v in env else v for v in eqn.outvars]
        staged_eqns.append(eqn.replace(outvars=outs) if outs != list(eqn.outvars) else eqn)
        for v in outs:
            env[v] = (True, True)

    for eqn in jaxpr.eqns:
        unk = [read(a)[0] for a in eqn.invars]
        if eqn.primitive is jit_p or eqn.primitive is checkpoint_p:
            k_eqn, s_eqn, out_uk, out_inst, res = split_checkpoint(
                eqn, unk, policy, tx, [read(a)[1] for a in eqn.invars])
            known_eqns.append(k_eqn)
            for r in res:
                env[r] = (False, False)
            for v, u, i in zip(eqn.outvars, out_uk, out_inst):
                env[v] = (u, i)
            if s_eqn is not None:
                need(s_eqn.invars)
                staged_eqns.append(s_eqn)
        elif not any(unk):
            add_known(eqn)
        else:
            rule = core.rule(eqn.primitive, "partial_eval", tx=tx, optional=True)
            if rule is None:
                k_eqns, u_eqns = [], [eqn]
            else:
                k_eqns, u_eqns, _ = rule(eqn, unk)
            for k in k_eqns:
                add_known(k)
            for u in u_eqns:
                add_staged(u)
            for v in eqn.outvars:   # (an output neither side binds is unknown)
                env.setdefault(v, (True, True))

    out_uk = [read(a)[0] for a in jaxpr.outvars]
    out_inst = [read(a)[1] for a in jaxpr.outvars]
    res = list(residuals)
    known = core.Jaxpr(jaxpr.constvars, [v for v, u in zip(jaxpr.invars, unknowns) if not u],
                       [a for a, u in zip(jaxpr.outvars, out_uk) if not u] + res, known_eqns)
    staged = core.Jaxpr(jaxpr.constvars,
                        res + [v for v, u, i in zip(jaxpr.invars, unknowns, inst) if u or i],
                        [a for a, i in zip(jaxpr.outvars, out_inst) if i], staged_eqns)
    return known, _fresh(staged), out_uk, out_inst, len(res)


def _offload(eqn, case):
    """An `Offloadable(src, dst)` answer for `eqn`, as JAX does it: (the known side's
    `device_put` of its outputs to memory `dst`, those copies -- the residuals, typed in
    `dst`'s memory space -- and the staged side's `device_put` of them back to `src`,
    rebinding the outputs). Both copy (`ALWAYS_COPY`) and have no source location."""
    n = len(eqn.outvars)
    dst, src = kind_to_space(case.dst), kind_to_space(case.src)
    resvars = [Var(in_memory_space(v.aval, dst)) for v in eqn.outvars]
    # (JAX's own params: `srcs` and `copy_semantics` of one entry for an equation of one
    # output, and of one per output here)
    params = dict(srcs=(None,) * n, copy_semantics=(ArrayCopySemantics.ALWAYS_COPY,) * n)
    return (Eqn(device_put_p, list(eqn.outvars), resvars, dict(devices=(dst,) * n, **params)),
            resvars,
            Eqn(device_put_p, resvars, list(eqn.outvars), dict(devices=(src,) * n, **params)))


def split_checkpoint(eqn, unk, policy, tx, inst=None):
    """A `checkpoint` equation split by `policy` (its own, or an outer checkpoint's
    for one nested in the body) at its unknown inputs `unk`; `inst` as in
    `partial_eval_jaxpr_custom`. -> (known eqn, staged eqn -- a differentiated
    `checkpoint` computing the outputs marked in out_inst -- or None, out_unknowns,
    out_inst, residual vars). A `jit` equation is split the same way (the policy looks
    into its body, as JAX's `_pjit_partial_eval_custom`), into two `jit` equations (a
    `jit`'s bodies are ClosedJaxprs, a `checkpoint`'s open Jaxprs, as JAX's)."""
    body = body_of(eqn.params["jaxpr"])
    is_jit = eqn.primitive is jit_p

    def param(j):
        return core.ClosedJaxpr(j, body.consts) if is_jit else j

    inst = [True] * len(eqn.invars) if inst is None else list(inst)
    known, staged, out_uk, out_inst, nres = partial_eval_jaxpr_custom(
        body, unk, policy, tx, inst)
    res = [Var(v.aval, v.hint) for v in staged.invars[:nres]]
    k_eqn = Eqn(eqn.primitive, [a for a, u in zip(eqn.invars, unk) if not u],
                [v for v, u in zip(eqn.outvars, out_uk) if not u] + res,
                keep_operands(dict(eqn.params, jaxpr=param(known)), [not u for u in unk]),
                eqn.source_info)
    if not any(out_inst):
        return k_eqn, None, out_uk, out_inst, res
    marks = {} if is_jit else {"differentiated": True}
    s_eqn = Eqn(eqn.primitive,
                res + [a for a, u, i in zip(eqn.invars, unk, inst) if u or i],
                [v for v, i in zip(eqn.outvars, out_inst) if i],
                keep_operands(dict(eqn.params, jaxpr=param(staged), **marks),
                              [u or i for u, i in zip(unk, inst)], len(res)),
                eqn.source_info)
    return k_eqn, s_eqn, out_uk, out_inst, res


def _fresh(jaxpr: core.Jaxpr) -> core.Jaxpr:
    """`jaxpr` with a fresh variable for every binder but the constvars (its equations
    are shared with the known side, and a variable is bound in one jaxpr only)."""
    sub: dict = {}

    def new(v):
        sub[v] = Var(v.aval, v.hint)
        return sub[v]

    def get(a):
        return sub.get(a, a) if isinstance(a, Var) else a

    invars = [new(v) for v in jaxpr.invars]
    eqns = []
    for eqn in jaxpr.eqns:
        ins = [get(a) for a in eqn.invars]
        eqns.append(eqn.replace(invars=ins, outvars=[new(v) for v in eqn.outvars]))
    return core.Jaxpr(jaxpr.constvars, invars, [get(a) for a in jaxpr.outvars], eqns)
