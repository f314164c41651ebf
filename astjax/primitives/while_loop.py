"""`while`: every rule of the structured while loop, `bind_while`, and the public
`lax.while_loop` / `lax.fori_loop`.

`while[cond_jaxpr body_jaxpr cond_nconsts body_nconsts] *cc *bc *carry` ->
`stablehlo.while`. Both jaxprs are ClosedJaxprs without consts.

Autodiff — reverse mode with a run-time trip count, under jit, no annotation:
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
  1024], the most whose buffer fits in `WHILE_CHECKPOINT_BYTES` (32 MiB). A loop
  whose trip count is known while staging (a `fori_loop` over staged bounds of
  known value, which JAX cannot reverse-differentiate) is transposed as a scan's
  would be instead: a `scan` keeping every state (up to `WHILE_KNOWN_TRIPS_BYTES`)
  and a reverse `scan` over them, O(n) time and memory.
  Everything is plain `while`/`cond`/`dynamic_slice` IR, so it compiles with the
  loop and differentiates again (grad of grad).

vmap:
  * the carry's mapped-ness is found by a fixpoint (a carry the body maps becomes
    mapped, at 0, from the start).
  * unmapped predicate: the loop is batched as is.
  * mapped predicate: every carry is mapped; the loop runs while *any* lane's
    predicate holds; in each iteration the body runs for the whole batch and the
    carry of lanes whose predicate is false is frozen (`select(active, new,
    old)`). As for cond, finished lanes feed the body the carry of an active lane
    (the lowest), so the extra iterations of a finished lane cannot create NaN/inf
    that reach values or gradients.

Printed source: a Python `while` loop.
"""
from __future__ import annotations

import ast
import weakref
from contextlib import contextmanager, nullcontext
from contextvars import ContextVar

import numpy as np

from .. import core, dtypes, hi_state, tree_util
from ..core import Eqn, Var, bind
from ..errors import (ArgumentValueError, DTypeError, DifferentiationError, JAXTypeError, LoopCarryError,
                      NotImplementedInAstjaxError, ShapeError)
from ..pyast import load, statement_rule
from ..shape_poly_expr import as_value
from ..util import split_list
from ..op_by_op import function_builder
from . import effects
from .vma_errors import carry_mismatch
from .base import add_tangents, lax_ops, instantiate, matchaxis, register, zeros_like_aval
from .cond import (_any, hi_carried, _first_lane, _fmt, _lane_select,
                   _safe_operand, _types_match, forward_operands, forwarded, io_effects,
                   not_mapped, promote_weak_carry, stage_sub, switch)
from .scan import _permute, carry_names, loop_fuse, preset_carry_outputs, scan

__all__ = ["while_p", "bind_while", "bind_while_test_last", "stores_to_refs", "while_loop",
           "fori_loop"]

WHILE_CHECKPOINT_BYTES = 32 << 20
WHILE_MAX_CHECKPOINTS = 1024
WHILE_MIN_CHECKPOINTS = 8
WHILE_KNOWN_TRIPS_BYTES = 1 << 30

while_p = core.new_primitive("while", multiple_results=True, higher_order=True)


# the condition jaxprs of loops staged from Python `while`/`for` statements, and of
# the `lax.while_loop`s JAX would bind eagerly (`eager_loop`)
_PYTHON_LOOPS: "weakref.WeakSet" = weakref.WeakSet()
_EAGER_LOOPS: "weakref.WeakSet" = weakref.WeakSet()
# the depths of the builders staging what JAX runs op by op (`eager_builder`)
_EAGER_BUILDERS: ContextVar[frozenset] = ContextVar("astjax_eager_builders",
                                                    default=frozenset())


@contextmanager
def eager_builder(function=False):
    """While the next builder stages what JAX would run op by op: the function of an
    eager transformation (`vmap(f)(x)`, `grad(f)(x)`, `jvp(f, ...)` outside `jit`, or
    one called directly in such a function), or the program an eager transformation
    compiles around it. A `jit`, a loop body or a branch staged inside is not.
    `function`: it is the transformation's function, whose operations on values that
    are not staged run now (`core.bind`), as JAX's give concrete arrays there."""
    if not eagerly_staged():
        yield
        return
    depth = len(core._state.builders)
    token = _EAGER_BUILDERS.set(_EAGER_BUILDERS.get() | {depth})
    try:
        with function_builder(depth) if function else nullcontext():
            yield
    finally:
        _EAGER_BUILDERS.reset(token)


def eagerly_staged() -> bool:
    """Whether every builder staging now stages what JAX runs op by op
    (`eager_builder`; True outside staging)."""
    marked = _EAGER_BUILDERS.get()
    return all(d in marked for d in range(len(core._state.builders)))


def bind_while(cond, body, init, python=False):
    """The one place `while` equations are made. `cond` and `body`: (Jaxpr, consts)
    pairs whose constvars are bound to the consts and whose invars are the carry;
    `cond` returns a boolean scalar, `body` the new carry. -> the final carry.
    `python`: the loop is a Python statement's (`python_loop`)."""
    cond_j, cond_c = cond
    body_j, body_c = body
    cond_jaxpr = core.closure_convert(cond_j)
    if python:
        _PYTHON_LOOPS.add(cond_jaxpr.jaxpr)
    elif eagerly_staged():
        _EAGER_LOOPS.add(cond_jaxpr.jaxpr)
    return bind(while_p, *cond_c, *body_c, *init,
                cond_jaxpr=cond_jaxpr, body_jaxpr=core.closure_convert(body_j),
                cond_nconsts=len(cond_c), body_nconsts=len(body_c))


def stores_to_refs(jaxpr) -> bool:
    """Whether `jaxpr` (or one nested in it) stores into a mutable array reference."""
    from .state import addupdate_p, swap_p
    return any(e.primitive in (swap_p, addupdate_p) for e in core.all_eqns(jaxpr))


def bind_while_test_last(first, cond, body, init):
    """A Python loop whose test stores into a reference, in Python's order of
    evaluation: the test's first value `first` (a boolean, its stores already made
    before the loop) is carried, and each trip runs the body and then the test, so the
    test runs once per trip plus once, each time after the body's stores.
    `cond`, `body`: as `bind_while`'s. -> the final carry."""
    def trip(t, *carry):
        outs = core.inline_jaxpr(*body, carry)
        return [core.inline_jaxpr(*cond, outs)[0], *outs]
    avals = [core.get_aval(first)] + [core.get_aval(v) for v in init]
    outs = bind_while(core.stage_open(lambda t, *carry: [t], avals),
                      core.stage_open(trip, avals), [first, *init], python=True)
    return outs[1:]


def python_loop(cond_jaxpr) -> bool:
    """Whether the `while` equation with this `cond_jaxpr` was staged from a Python
    loop statement: its test and body share the mutable references they close over,
    as Python's do. A `lax.while_loop`'s condition and body each get their own copy
    of such a reference, as JAX's state discharge gives them (`transforms/discharge.py`)."""
    return cond_jaxpr.jaxpr in _PYTHON_LOOPS


def eager_loop(cond_jaxpr) -> bool:
    """Whether the `lax.while_loop` equation with this `cond_jaxpr` was bound where JAX
    binds it eagerly (in an eager transformation's function, no `jit` between): JAX
    runs it as one jitted primitive there."""
    return cond_jaxpr.jaxpr in _EAGER_LOOPS

# ---- abstract eval, impl, lowering ---------------------------------------------


def _while_ae(*args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    carry = args[cond_nconsts + body_nconsts:]
    cc = args[:cond_nconsts]
    bc = args[cond_nconsts:cond_nconsts + body_nconsts]
    if not _types_match(cond_jaxpr.in_avals, list(cc) + list(carry)):
        raise ShapeError(f"while cond takes {_fmt(cond_jaxpr.in_avals)}, given {_fmt(list(cc) + list(carry))}")
    if [(a.shape, a.dtype) for a in cond_jaxpr.out_avals] != [((), dtypes.bool_)]:
        raise DTypeError(f"while cond must return a boolean scalar, got {_fmt(cond_jaxpr.out_avals)}")
    if not _types_match(body_jaxpr.in_avals, list(bc) + list(carry)):
        raise ShapeError(f"while body takes {_fmt(body_jaxpr.in_avals)}, given {_fmt(list(bc) + list(carry))}")
    if not _types_match(body_jaxpr.out_avals, carry):
        raise LoopCarryError(f"while body returns {_fmt(body_jaxpr.out_avals)} for a carry of "
                             f"{_fmt(carry)}")
    # the body's types: a weak initial carry whose body result is strong ends strong
    return list(body_jaxpr.out_avals)


def _while_impl(*args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    cc = args[:cond_nconsts]
    bc = args[cond_nconsts:cond_nconsts + body_nconsts]
    carry = list(args[cond_nconsts + body_nconsts:])
    while bool(core.eval_closed(cond_jaxpr, *cc, *carry)[0]):
        carry = core.eval_closed(body_jaxpr, *bc, *carry)
    return carry


def _while_lowering(ctx, *args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    # the body's ordered effects' tokens are carried first (as JAX's; one in the
    # condition is not threaded)
    if effects.threaded(ctx, cond_jaxpr) and not cond_jaxpr.out_avals[0].shape:
        return _while_cond_effects(ctx, args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts)
    effs = effects.threaded(ctx, body_jaxpr)
    nt = len(effs)
    avals = effects.token_avals(effs) + list(ctx.avals_in)
    nc = nt + cond_nconsts + body_nconsts

    def cond_body(*xs):
        return ctx.lower_jaxpr(cond_jaxpr.jaxpr, [], list(xs[nt:nt + cond_nconsts]) + list(xs[nc:]))

    def body_body(*xs):
        effects.advance(ctx, effs, xs[:nt])
        new = ctx.lower_jaxpr(body_jaxpr.jaxpr, [], list(xs[nt + cond_nconsts:nc]) + list(xs[nc:]))
        return effects.current(ctx, effs) + list(xs[nt:nc]) + new

    outs = ctx.op("stablehlo.while", effects.current(ctx, effs) + list(args), out_avals=avals,
                  regions=[ctx.region(avals, cond_body), ctx.region(avals, body_body)])
    effects.advance(ctx, effs, outs[:nt])
    return outs[nc:]

def _while_cond_effects(ctx, args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    """A `while` whose condition has an ordered effect, lowered as JAX lowers it: the
    condition runs once before the loop and then at the end of each trip, its value
    carried (first after the consts) and read by the loop's condition, so that the
    condition's effect is threaded with the body's."""
    n = cond_nconsts + body_nconsts
    avals = list(ctx.avals_in)

    def loop(*xs):
        cc, bc, carry = split_list(xs, cond_nconsts, body_nconsts)
        first = core.inline_jaxpr(cond_jaxpr.jaxpr, cond_jaxpr.consts, cc + carry)[0]

        def trip(*state):
            c, b, _, k = split_list(state, cond_nconsts, body_nconsts, 1)
            k = core.inline_jaxpr(body_jaxpr.jaxpr, body_jaxpr.consts, b + k)
            return [core.inline_jaxpr(cond_jaxpr.jaxpr, cond_jaxpr.consts, c + k)[0], *k]
        state = [core.get_aval(first)] + avals[n:]
        cj = core.stage(lambda p, *k: [p], state)
        bj = core.stage(trip, avals[:n] + state)
        outs = bind(while_p, *cj.consts, *bj.consts, *cc, *bc, first, *carry,
                    cond_jaxpr=core.closure_convert(cj.jaxpr),
                    body_jaxpr=core.closure_convert(bj.jaxpr), cond_nconsts=len(cj.consts),
                    body_nconsts=len(bj.consts) + n)
        return outs[1:]
    program = core.stage(loop, avals)
    consts = [ctx.constant(np.asarray(c), core.get_aval(c)) for c in program.consts]
    return ctx.lower_jaxpr(program.jaxpr, consts, list(args))

# ---- autodiff ----------------------------------------------------------------------


def _while_jvp(tx, primals, tangents, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    ncc, nbc = cond_nconsts, body_nconsts
    cc, bc, carry = split_list(list(primals), ncc, nbc)
    _, tbc, tk = split_list(list(tangents), ncc, nbc)
    nk = len(carry)
    nz_bc = [not isinstance(t, core.Zero) for t in tbc]
    k_avals = [v.aval for v in body_jaxpr.jaxpr.invars[nbc:]]
    nz_k = [not isinstance(t, core.Zero) and core.differentiable(a) for t, a in zip(tk, k_avals)]
    while True:
        jv, out_nz = tx.jvp_jaxpr(body_jaxpr, nz_bc + nz_k, instantiate=nz_k)
        new = [a or b for a, b in zip(nz_k, out_nz)]
        if new == nz_k:
            break
        nz_k = new
    n_bt, n_kt = sum(nz_bc), sum(nz_k)
    # jv: (bc, k, bct, kt) -> (k', kt')  ->  (bc, bct, k, kt) -> (k', kt')
    in_order = (list(range(nbc)) + list(range(nbc + nk, nbc + nk + n_bt))
                + list(range(nbc, nbc + nk)) + list(range(nbc + nk + n_bt, nbc + nk + n_bt + n_kt)))
    jv = _permute(jv, in_order, list(range(nk + n_kt)))
    body, extra = core.split_consts(jv)
    cj = cond_jaxpr.jaxpr
    kt_avals = [a for a, z in zip(k_avals, nz_k) if z]
    cond = core.ClosedJaxpr(core.Jaxpr([], cj.invars + [Var(a) for a in kt_avals], cj.outvars,
                                       cj.eqns), [])
    bct = [t for t in tbc if not isinstance(t, core.Zero)]
    kt = [instantiate(t, a) for t, a, z in zip(tk, k_avals, nz_k) if z]
    outs = bind(while_p, *cc, *extra, *bc, *bct, *carry, *kt, cond_jaxpr=cond, body_jaxpr=body,
                cond_nconsts=ncc, body_nconsts=len(extra) + nbc + len(bct))
    k_out, kt_out = outs[:nk], outs[nk:]
    it = iter(kt_out)
    return k_out, [next(it) if z else core.Zero(a) for z, a in zip(nz_k, k_avals)]


def _cond_reads(tx, cond_jaxpr, ncc):
    _, used = tx.dce_jaxpr(cond_jaxpr.jaxpr)
    return used[ncc:]


def _while_partial_eval(tx, eqn, in_uk):
    p = eqn.params
    ncc, nbc = p["cond_nconsts"], p["body_nconsts"]
    body, cond = p["body_jaxpr"], p["cond_jaxpr"]
    cc_uk, bc_uk, k_uk = split_list(in_uk, ncc, nbc)
    everything = [], [eqn], [True] * len(eqn.outvars)
    if any(cc_uk):
        return everything
    while True:  # fixpoint; the converged pass's split is the one used
        known_b, _, out_uk, nres = tx.partial_eval_jaxpr(body, bc_uk + k_uk, instantiate=k_uk)
        new = [a or b for a, b in zip(k_uk, out_uk)]
        if new == k_uk:
            break
        k_uk = new
    reads = _cond_reads(tx, cond, ncc)
    if any(r and u for r, u in zip(reads, k_uk)):
        return everything
    kj = known_b.jaxpr
    kbody = core.Jaxpr(kj.constvars, kj.invars, kj.outvars[:len(kj.outvars) - nres], kj.eqns)
    kbody, _ = tx.dce_jaxpr(kbody)
    kbody, kextra = core.split_consts(core.ClosedJaxpr(kbody, known_b.consts))
    if kextra:
        return everything
    cj = cond.jaxpr
    kcond = core.ClosedJaxpr(core.Jaxpr([], cj.invars[:ncc] + [v for v, u in zip(cj.invars[ncc:], k_uk)
                                                               if not u], cj.outvars, cj.eqns), [])
    cc, bc, carry = split_list(eqn.invars, ncc, nbc)
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


def _known_trip_count(cond_jaxpr, body_jaxpr, ncc, nbc, carry):
    """The trip count of a loop shaped as `fori_loop` stages it -- the cond is
    `lt i hi` on two integer carries, the body adds a literal 1 to `i` and passes `hi`
    through -- when both start at values known while staging; else None."""
    cj, bj = cond_jaxpr.jaxpr, body_jaxpr.jaxpr
    if len(cj.eqns) != 1 or cj.eqns[0].primitive.name != "lt" or cj.outvars != cj.eqns[0].outvars:
        return None
    slots = {v: k for k, v in enumerate(cj.invars[ncc:])}
    a, b = cj.eqns[0].invars
    if a not in slots or b not in slots:
        return None
    p, q = slots[a], slots[b]
    b_in = bj.invars[nbc:]
    if bj.outvars[q] is not b_in[q] or not dtypes.issubdtype(b_in[p].aval.dtype, np.integer):
        return None
    step = next((e for e in bj.eqns if bj.outvars[p] in e.outvars), None)
    if step is None or step.primitive.name != "add":
        return None
    ops = step.invars
    one = [o for o in ops if o is not b_in[p]]
    if len(one) != 1 or len(ops) != 2 or not isinstance(one[0], core.Literal) or one[0].val != 1:
        return None
    builder = core.current_builder()
    lo, hi = (builder.known_value(carry[k]) if builder is not None else None for k in (p, q))
    if lo is None or hi is None:
        return None
    return max(int(hi) - int(lo), 0)


def _while_transpose(tx, cts, *args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    lax = lax_ops()
    raw = core.raw
    inline = tx.inline
    _zeros = zeros_like_aval
    ncc, nbc = cond_nconsts, body_nconsts
    cc, bc, carry = split_list(list(args), ncc, nbc)
    if any(core.is_undefined(c) for c in cc):
        raise AssertionError("while is not linear in its cond consts")
    bc_lin = [core.is_undefined(b) for b in bc]
    k_lin = [core.is_undefined(k) for k in carry]
    while True:
        _, _, out_uk, _ = tx.partial_eval_jaxpr(body_jaxpr, bc_lin + k_lin, instantiate=k_lin)
        new = [a or b for a, b in zip(k_lin, out_uk)]
        if new == k_lin:
            break
        k_lin = new
    if any(r and l for r, l in zip(_cond_reads(tx, cond_jaxpr, ncc), k_lin)):
        raise DifferentiationError("reverse-mode differentiation of a `while` loop whose "
                                   "condition depends on a differentiated value")
    body_known, body_lin, _, nres = tx.partial_eval_jaxpr(body_jaxpr, bc_lin + k_lin,
                                                          instantiate=k_lin)
    n_bl, n_kl = sum(bc_lin), sum(k_lin)
    body_t = tx.transpose_jaxpr(body_lin, [False] * nres + [True] * (n_bl + n_kl))
    bc_nl = [b for b in bc if not core.is_undefined(b)]
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

    lin_bc_avals = [b.aval for b in bc if core.is_undefined(b)]
    ct_k0 = [instantiate(c, a) for c, a, l in zip(cts, k_avals, k_lin) if l]

    def apply_t(s, acc, ck):  # one step of the backward pass, at state s
        outs = inline(body_t, residuals(s) + list(ck))
        return [add_tangents(a, d) for a, d in zip(acc, outs[:n_bl])], outs[n_bl:]

    trips = _known_trip_count(cond_jaxpr, body_jaxpr, ncc, nbc, carry)
    state_bytes = sum(a.size * np.dtype(a.dtype).itemsize for a in s_avals)
    if trips is not None and trips * state_bytes <= WHILE_KNOWN_TRIPS_BYTES:
        # a scan keeping every state, and a reverse scan over them
        _, states = scan(raw(lambda s, _: (step(s), list(s))), s0, None, length=trips)
        (acc, ck), _ = scan(raw(lambda c, s: (apply_t(s, *c), None)),
                            ([_zeros(a) for a in lin_bc_avals], ct_k0), states,
                            length=trips, reverse=True)
        return _transpose_outputs(ncc, bc_lin, carry, k_lin, acc, ck)
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
        bufs = switch(full, (raw(lambda b: list(b)), raw(compact)), bufs)
        stride = lax.select(full, lax.mul(stride, i32(2)), stride)
        slot = lax.select(full, i32(C // 2), slot)
        new_bufs = []
        for b, x in zip(bufs, s):
            z = (i32(0),) * len(core.get_aval(x).shape)
            cur = lax.dynamic_slice(b, (slot,) + z, (1,) + tuple(core.get_aval(x).shape),
                                    allow_negative_indices=False)
            val = lax.select(store, lax.reshape(x, (1,) + core.get_aval(x).shape), cur)
            new_bufs.append(lax.dynamic_update_slice(b, val, (slot,) + z,
                                                      allow_negative_indices=False))
        return lax.add(n, i32(1)), stride, new_bufs, step(s)

    n, stride, bufs, _ = while_loop(raw(lambda st: cond_fn(st[3])), raw(fwd_body),
                                    (i32(0), i32(1), bufs0, s0))
    # 2. backward: k = n-1 .. 0, restoring the state at step k from a checkpoint

    def restore(k):
        j = lax.div(k, stride)
        s = [lax.reshape(lax.dynamic_slice(b, (j,) + (i32(0),) * len(a.shape), (1,) + a.shape,
                                            allow_negative_indices=False),
                         a.shape) for b, a in zip(bufs, s_avals)]
        m = lax.sub(k, lax.mul(j, stride))
        _, s = while_loop(raw(lambda st: lax.gt(st[0], i32(0))),
                          raw(lambda st: (lax.sub(st[0], i32(1)), step(st[1]))), (m, s))
        return s

    def bwd_body(state):
        k, acc, ck = state
        k = lax.sub(k, i32(1))
        return (k,) + tuple(apply_t(restore(k), acc, ck))

    _, acc, ck = while_loop(raw(lambda st: lax.gt(st[0], i32(0))), raw(bwd_body),
                            (n, [_zeros(a) for a in lin_bc_avals], ct_k0))
    return _transpose_outputs(ncc, bc_lin, carry, k_lin, acc, ck)


def _transpose_outputs(ncc, bc_lin, carry, k_lin, acc, ck):
    """The while's cotangents in operand order: accumulated ones for the linear body
    consts, the final cotangent carry for the linear carries, None elsewhere."""
    acc_it, k_it = iter(acc), iter(ck)
    out = [None] * ncc + [next(acc_it) if l else None for l in bc_lin]
    for c, l in zip(carry, k_lin):
        ct = next(k_it) if l else None
        out.append(ct if core.is_undefined(c) else None)
    return out

# ---- vmap --------------------------------------------------------------------------


def _while_batch(tx, args, dims, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    io = io_effects([cond_jaxpr, body_jaxpr])
    if "ordered" in io:
        raise NotImplementedInAstjaxError("Ordered IO effects not supported in vmap.",
                                          hint="call the io_callback outside the loop")
    frame = core.axis_frame()
    size, name = frame.size, frame.name
    nc, nb = cond_nconsts, body_nconsts
    cc, bc, carry = list(args[:nc]), list(args[nc:nc + nb]), list(args[nc + nb:])
    cc_d, bc_d, carry_d = list(dims[:nc]), list(dims[nc:nc + nb]), list(dims[nc + nb:])
    mapped = [d is not not_mapped for d in carry_d]
    while True:  # fixpoint: carries the body maps are mapped
        in_d = bc_d + [0 if m else not_mapped for m in mapped]
        out_m = tx.mapped_outputs(body_jaxpr, in_d, size, name)
        new = [a or b for a, b in zip(mapped, out_m)]
        if new == mapped:
            break
        mapped = new
    pred_mapped = tx.mapped_outputs(cond_jaxpr, cc_d + [0 if m else not_mapped for m in mapped],
                                    size, name)[0]
    if pred_mapped:
        if io:   # JAX: the callback would run again for lanes that have finished
            raise NotImplementedInAstjaxError("Unordered IO effects not supported in "
                                              "while_loop with batched predicate",
                                              hint="call the io_callback outside the loop")
        mapped = [True] * len(carry)
    carry = [x if not m else matchaxis(x, d, 0, size) for x, d, m in zip(carry, carry_d, mapped)]
    k_d = [0 if m else not_mapped for m in mapped]
    cond_b, cond_c, _ = tx.batch_subjaxpr(cond_jaxpr, cc_d + k_d, size, name)
    body_b, body_c, _ = tx.batch_subjaxpr(body_jaxpr, bc_d + k_d, size, name, force_out=mapped)
    if not pred_mapped:
        outs = bind(while_p, *cond_c, *cc, *body_c, *bc, *carry,
                    cond_jaxpr=cond_b, body_jaxpr=body_b,
                    cond_nconsts=len(cond_c) + nc, body_nconsts=len(body_c) + nb)
        return outs, k_d
    # mapped predicate: masked loop
    ncc, nbc = len(cond_c) + nc, len(body_c) + nb
    cc_all, bc_all = cond_c + cc, body_c + bc
    n_carry = len(carry)
    # a condition with an ordered effect runs once a trip, as JAX runs it (before the
    # loop, then after each body): its lanes' values carried first
    carried = bool(effects.ordered_effects(cond_jaxpr))

    def lanes(c_args, ks):
        return core.inline_jaxpr(cond_b.jaxpr, [], list(c_args) + list(ks))[0]

    def new_cond(*xs):
        c_args, ks = xs[:ncc], xs[ncc:]
        return [_any(ks[0] if carried else lanes(c_args, ks))]

    # a body with an effect (a debug print) runs on every lane's own carry, as JAX's:
    # the NaN-safe substitution would show another lane's values
    has_effects = any(core.has_effects(e) for e in body_b.jaxpr.eqns)

    def new_body(*xs):
        c_args, b_args, ks = xs[:ncc], xs[ncc:ncc + nbc], list(xs[ncc + nbc:])
        pred, ks = (ks[0], ks[1:]) if carried else (lanes(c_args, ks), ks)
        if has_effects:
            safe = ks
        else:
            r = _first_lane(pred, size)
            safe = [_safe_operand(k, pred, r) for k in ks]
        new = core.inline_jaxpr(body_b.jaxpr, [], list(b_args) + safe)
        new = [_lane_select(pred, n, k) for n, k in zip(new, ks)]
        return [lanes(c_args, new), *new] if carried else new

    with core.extend_axis_env(name, size):
        carry = [lanes(cc_all, carry), *carry] if carried else carry
        carry_avals = [core.get_aval(x) for x in carry]
        cj = core.stage(new_cond, [core.get_aval(x) for x in cc_all] + carry_avals)
        bj = core.stage(new_body, [core.get_aval(x) for x in cc_all + bc_all] + carry_avals)
    cj_c, bj_c = list(cj.consts), list(bj.consts)
    cond_new = core.closure_convert(cj.jaxpr)
    body_new = core.closure_convert(bj.jaxpr)
    outs = bind(while_p, *cj_c, *cc_all, *bj_c, *cc_all, *bc_all, *carry,
                cond_jaxpr=cond_new, body_jaxpr=body_new,
                cond_nconsts=len(cj_c) + ncc, body_nconsts=len(bj_c) + ncc + nbc)[carried:]
    assert len(outs) == n_carry
    return outs, [0] * n_carry

# ---- dead-code elimination ---------------------------------------------------------


def _while_dce(tx, eqn, used_outputs):
    p = eqn.params
    ncc, nbc = p["cond_nconsts"], p["body_nconsts"]
    body, cond = p["body_jaxpr"], p["cond_jaxpr"]
    cj, cond_in = tx.dce_jaxpr(cond.jaxpr)
    cond_used = cond_in[ncc:]
    used_k = [a or b for a, b in zip(used_outputs, cond_used)]
    while True:  # fixpoint; the converged pass's body is the one kept
        bj, used_in = tx.dce_jaxpr(body.jaxpr, used_k)
        new = [a or b for a, b in zip(used_k, used_in[nbc:])]
        if new == used_k:
            break
        used_k = new
    used_bc = used_in[:nbc]
    bj = core.Jaxpr(bj.constvars, [v for v, u in zip(bj.invars, used_bc + used_k) if u],
                    bj.outvars, bj.eqns)
    used_cc = cond_in[:ncc]
    cj = core.Jaxpr(cj.constvars, [v for v, u in zip(cj.invars, used_cc + used_k) if u],
                    cj.outvars, cj.eqns)
    keep = used_cc + used_bc + used_k
    new = eqn.replace(invars=[a for a, u in zip(eqn.invars, keep) if u],
                      outvars=[v for v, u in zip(eqn.outvars, used_k) if u],
                      params=dict(p, cond_jaxpr=core.ClosedJaxpr(cj, cond.consts),
                                  body_jaxpr=core.ClosedJaxpr(bj, body.consts),
                                  cond_nconsts=sum(used_cc), body_nconsts=sum(used_bc)))
    return new, keep

# ---- printed source: a Python while loop -------------------------------------------


def _while_fuse(gen, scope, i, eqn):
    p = eqn.params
    nconst = p["cond_nconsts"] + p["body_nconsts"]
    bj = p["body_jaxpr"].jaxpr
    loop_fuse(gen, scope, eqn, eqn.invars[nconst:], bj.invars[p["body_nconsts"]:], bj.outvars)


@statement_rule
def _while_source(gen, eqn, stmts):
    p = eqn.params
    cj, bj = p["cond_jaxpr"].jaxpr, p["body_jaxpr"].jaxpr
    nc, nb = p["cond_nconsts"], p["body_nconsts"]
    cc, bc, init = eqn.invars[:nc], eqn.invars[nc:nc + nb], eqn.invars[nc + nb:]
    names = carry_names(gen, eqn, init, eqn.outvars, bj.invars[nb:], bj.outvars, stmts)
    for v, a in zip(cj.invars[:nc], cc):
        gen.alias(v, a)
    for v, a in zip(bj.invars[:nb], bc):
        gen.alias(v, a)
    for v, n in zip(cj.invars[nc:], names):
        gen.name_var(v, n)
    for v, n in zip(bj.invars[nb:], names):
        gen.name_var(v, n)
    test = gen.inline_expr(cj)
    body: list = []
    flag_stmts = None
    if test is None:  # a multi-line test: compute a flag before the loop and per iteration
        flag = gen.fresh(gen.hint_from(cj.outvars[0]) or "keep_going")

        def flag_block():
            out = []
            if isinstance(cj.outvars[0], core.Var) and cj.outvars[0] not in cj.invars:
                gen.preset[cj.outvars[0]] = flag
            gen.emit_jaxpr(cj, out)
            gen.preset.pop(cj.outvars[0], None)
            gen.assign_outputs(out, [(flag, gen.arg(cj.outvars[0]))])
            return out
        stmts.extend(flag_block())
        test = load(flag)
        flag_stmts = flag_block
    preset_carry_outputs(gen, bj, bj.invars[nb:], bj.outvars, names)
    gen.emit_jaxpr(bj, body)
    gen.drop_presets(bj.outvars)
    gen.assign_outputs(body, [(n, gen.typed_arg(v, o.aval))
                              for v, o, n in zip(bj.outvars, eqn.outvars, names)])
    if flag_stmts is not None:
        # the test reads the new carries: rename the cond's invars to them (already so)
        body.extend(flag_stmts())
    stmts.append(ast.While(test=test, body=body or [ast.Pass()], orelse=[]))


_while_source.fuse = _while_fuse

register(while_p, impl=_while_impl, abstract_eval=_while_ae, lowering=_while_lowering,
         jvp=_while_jvp, partial_eval=_while_partial_eval, transpose=_while_transpose,
         batch=_while_batch, dce=_while_dce, source=_while_source)

# ---- lax.while_loop, lax.fori_loop -------------------------------------------------


def _carry_avals(leaves):
    return [core.get_aval(x) for x in leaves]


def while_loop(cond_fun, body_fun, init_val):
    """JAX's `lax.while_loop`: `body_fun` applied while `cond_fun` holds. Staged as JAX
    traces it: `cond_fun`, then `body_fun`, and both again when a weak-typed initial
    value takes the body's type (what they print comes in that order). Mutable hi
    values (hijax Variables) the body writes where it closes over them are carried."""
    if not hi_state.active():
        return _while_loop(cond_fun, body_fun, init_val)

    def lifted(objs):
        cap = hi_state.Lowering(list(objs))
        test, step = hi_carried(objs, cond_fun), hi_carried(objs, body_fun)
        out, states = _while_loop(core.raw(lambda c: test(c[0], c[1])[0]),
                                  core.raw(lambda c: step(c[0], c[1])), (init_val, cap.tree))
        cap.write_back(states)
        return out
    return hi_state.carrying(lambda: _while_loop(cond_fun, body_fun, init_val), lifted)


def _while_loop(cond_fun, body_fun, init_val):
    leaves, tree = tree_util.flatten_for_staging(init_val)
    args_tree = tree_util.flatten_for_staging((init_val,))[1]
    avals = _carry_avals(leaves)

    def stage_both(avals):
        cond = stage_sub(cond_fun, args_tree, avals, args=leaves)
        cond_out = [v.aval for v in cond[0].outvars]
        body_j, body_c, body_tree = stage_sub(body_fun, args_tree, avals, args=leaves)
        if len(cond_out) != 1 or cond_out[0].shape != () or cond_out[0].dtype != dtypes.bool_:
            raise JAXTypeError(f"while_loop cond_fun must return a boolean scalar, got "
                               f"{', '.join(a.str_short(True) for a in cond_out)}",
                               hint="return one bool, e.g. `c < 3` on a scalar or "
                                    "`jnp.all(c < 3)`")
        return cond[:2], (body_j, body_c), body_tree, [v.aval for v in body_j.outvars]

    cond, body, body_tree, body_out = stage_both(avals)
    if body_tree == tree:  # a weak-typed initial value takes the body's type, as in JAX
        leaves, changed = promote_weak_carry(leaves, avals, body_out)
        if changed:
            avals = _carry_avals(leaves)
            cond, body, body_tree, body_out = stage_both(avals)
    carry_mismatch("while_loop body", body_fun, tree, avals, body_tree, body_out)
    outs = bind_while(cond, body, leaves)
    out = tree_util.tree_unflatten(tree, outs)
    if any(isinstance(o, core.Tracer) for o in outs):
        return out
    # run now (eagerly, or on constants while an eager transformation stages: op_by_op):
    # a carry the body passes on unchanged and the condition does not read is the
    # initial value itself, as JAX's while_loop forwards it (a Python scalar stays one)
    read = {a for e in cond[0].eqns for a in e.invars if isinstance(a, Var)}
    read.update(v for v in cond[0].outvars if isinstance(v, Var))
    fwd = {o: i for o, i in enumerate(forwarded(body[0]))
           if i == o and cond[0].invars[i] not in read}
    return forward_operands(init_val, out, fwd, every_leaf=True)



def _trace_time_int(v):
    """A loop bound as an int when JAX knows it at trace time, else None.

    JAX's rule (`core.is_concrete`): a Python or NumPy scalar or an `Array` is known, a
    staged value is not -- not even one whose value astjax knows by folding constants,
    because JAX stages `jnp.int32(4)` or `jnp.sum(...)` under `jit` like any other
    operation, and its `fori_loop` is a `while` there."""
    if isinstance(v, core.Tracer):
        return None
    try:
        return int(np.asarray(v)[()]) if np.ndim(v) == 0 else None
    except (TypeError, ValueError):
        return None


def _bounds_dtype(lower, upper):
    """fori_loop's bounds have one dtype; a weak (Python) signed int adopts the other
    bound's signed integer dtype (JAX's rule)."""
    a, b = core.get_aval(lower), core.get_aval(upper)
    if a.dtype == b.dtype:
        return a.dtype
    if dtypes.issubdtype(a.dtype, np.signedinteger) and dtypes.issubdtype(b.dtype,
                                                                          np.signedinteger):
        if a.weak_type and not b.weak_type:
            return b.dtype
        if b.weak_type and not a.weak_type:
            return a.dtype
    raise DTypeError(f"fori_loop's lower and upper bounds must have one dtype, got "
                     f"{a.str_short(True)} and {b.str_short(True)}",
                     hint="pass both bounds as ints (or convert one with .astype)")


def fori_loop(lower, upper, body_fun, init_val, *, unroll=None):
    """JAX's `lax.fori_loop`. Bounds JAX knows at trace time (Python or NumPy scalars,
    Arrays): a `scan` of int(upper) - int(lower) steps with no `xs`, the index a weak
    int counter carried next to `init_val` (float bounds are truncated, as JAX does).
    A staged bound -- even one whose value astjax knows, such as `jnp.int32(4)` under
    `jit` -- gives a `while` whose index has the bounds' dtype (a float index counts by
    1.0), as in JAX. JAX cannot differentiate that `while` in reverse mode; astjax can
    (`_while_transpose`, which keeps every state when the trip count is known)."""
    lax = lax_ops()
    lower, upper = as_value(lower), as_value(upper)     # (a symbolic dimension: staged)
    dt = _bounds_dtype(lower, upper)
    lo, hi = _trace_time_int(lower), _trace_time_int(upper)
    if lo is not None and hi is not None:

        def step(loop_carry, _):   # (JAX's parameter name: its messages show it)
            i, x = loop_carry
            return (i + 1, body_fun(i, x)), None
        # the counter starts as the Python int `lo`: weak, of the default integer dtype
        (_, out), _ = scan(step, (lo, init_val), None, length=max(hi - lo, 0),
                           unroll=unroll or 1)
        return out
    if unroll is not None and unroll is not False and unroll != 1:
        raise ArgumentValueError("fori_loop's `unroll` needs loop bounds known at trace "
                                 "time",
                                 hint="pass Python ints as bounds, or drop `unroll`")
    lower, upper = (v if core.get_aval(v).dtype == dt else lax.convert_element_type(v, dt)
                    for v in (lower, upper))

    def c(state):
        i, hi_, _ = state
        return lax.lt(i, hi_)

    def b(loop_carry):
        i, hi_, x = loop_carry
        return lax.add(i, np.ones((), dt)[()]), hi_, body_fun(i, x)
    return while_loop(c, b, (lower, upper, init_val))[2]
