"""Primitives that exist for autodiff (and `custom_vmap_call`, a call with a user
batching rule), each with every rule: `stop_gradient`
(identity, zero derivative) and its `lax.stop_gradient` wrapper, `custom_jvp_call` /
`custom_vjp_call` (a function with a user-defined derivative), `custom_lin` (the
linear part of a custom_vjp, transposed by the user's bwd) and `checkpoint`
(rematerialization). The public `custom_jvp` / `custom_vjp` API lives
in `astjax.custom_api`, `checkpoint` in `astjax.ad_api`. The Python rules kept in
params take the equation's consts first: `jvp_jaxpr_fun(consts, primals, tangents)`,
`fwd_jaxpr_thunk(consts, primals)`; they sit under JAX 0.10.2's param names
(`call_jaxpr`, `jvp_jaxpr_fun` / `fwd_jaxpr_thunk`, `bwd`, `out_trees`, `num_consts`,
`symbolic_zeros`), printed as JAX prints them (the rules by their functions' names).

`custom_jvp_call`, `custom_vjp_call` and `checkpoint` call a nested jaxpr: they are
higher-order, so their jvp/transpose/partial_eval/batch/dce rules receive the running
pass `tx` first (`tx.jvp_jaxpr`, `tx.batch_subjaxpr`, ...). Printed as source, the
call is inlined (the numbers are the same; a custom derivative rule or a
rematerialization policy is not kept in the source).

Batching the calls: the nested jaxpr is batched with `tx.batch_subjaxpr` (the values
it captures become leading consts). For `custom_jvp_call` and `custom_vjp_call` every
operand is first brought to batch dim 0 and the Python rules kept in params
(`jvp_jaxpr_fun`; `fwd_jaxpr_thunk`, `bwd`), written for per-example values, are
wrapped (`_Vmapped`) so that, called on batched values, they stage the per-example
rule and batch that jaxpr.
"""
from __future__ import annotations

import weakref

from .. import core, tree_util
from ..core import bind
from ..errors import ArgumentTypeError, DifferentiationTypeError
from ..pyast import lax_call
from ..util import WrappedFun
from .reductions import reduce_sum
from .base import (call_rules, call_source, defvectorized, inline_call_jvp, instantiate,
                   matchaxis, register, unmapped_aval)

__all__ = ["stop_gradient_p", "custom_jvp_call_p", "custom_vjp_call_p", "custom_lin_p",
           "checkpoint_p", "custom_vmap_call_p", "stop_gradient", "SymbolicZero", "CustomVJPPrimal",
           "named_body", "body_of", "bind_checkpoint"]


# ------------------------------- symbolic zeros, as a custom_vjp rule receives them


class SymbolicZero:
    """A tangent or cotangent known to be zero, of abstract value `aval`: what a
    `custom_vjp` bwd rule defined with `symbolic_zeros=True` receives for an output
    with no cotangent (it may return one, or None, for a zero input cotangent)."""

    def __init__(self, aval):
        self.aval = aval

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)

    def __bool__(self):
        return False

    def __repr__(self):
        return f"SymbolicZero({self.aval.str_short(True)})"

    @staticmethod
    def from_primal_value(x):
        """The zero tangent of primal value `x`."""
        return SymbolicZero(core.get_aval(x))


class CustomVJPPrimal:
    """A primal input (one pytree leaf) of a `custom_vjp` fwd rule defined with
    `symbolic_zeros=True`: its `value` and whether it is `perturbed` (has a nonzero
    tangent)."""

    def __init__(self, value, perturbed):
        self.value = value
        self.perturbed = perturbed

    def __repr__(self):
        return f"CustomVJPPrimal(value={self.value!r}, perturbed={self.perturbed})"

# ------------------------------------------------------------------ stop_gradient
stop_gradient_p = core.new_primitive("stop_gradient")


def _stop_gradient_jvp(primals, tangents):
    out = bind(stop_gradient_p, *primals)
    return out, core.Zero(core.get_aval(out))


register(stop_gradient_p, impl=lambda x: x, abstract_eval=lambda x: x,
         lowering=lambda ctx, x: x, jvp=_stop_gradient_jvp,
         source=lambda gen, eqn: lax_call("stop_gradient", gen, eqn))
defvectorized(stop_gradient_p)


def stop_gradient(x):
    """Identity whose derivative is zero (pytrees allowed)."""
    def sg(v):
        if isinstance(v, core.Tracer) and not core.differentiable(v.aval):
            return v
        if not isinstance(v, core.Tracer) and core.current_builder() is None:
            return v
        return bind(stop_gradient_p, v)
    return tree_util.tree_map(sg, x)

# ------------------------------------- calls of a nested jaxpr: shared rules


class _Vmapped:
    """A Python rule `fn(*lists) -> lists` (per-example) applied to values batched at
    dim 0 -- but the first entries that `in_batched` marks False, unbatched -- returning
    lists batched at 0, but: a custom_vjp fwd's residuals (list 1) are left unbatched
    where they do not depend on the batch, and recorded in `res_batched` by their types
    (its bwd's `in_batched`: looked up by its first list's types); a single list's entry that `out_batched` marks False is unbatched,
    summed over the batch if it depends on it. As JAX's custom_vjp under vmap: a bwd
    returning a residual for an unbatched argument gives it once (flax's fp8 histories).
    A rule named by `exact` (a custom_vjp's fwd, a custom_jvp's rule) returns its
    outputs mapped as the call's are (`out_batched`: an unmapped one is the same in
    every example; a batched one there is a located error, not summed), and a bwd
    takes their cotangents so (`ct_batched`, after the residuals)."""
    __slots__ = ("fn", "size", "name", "single", "batch_jaxpr", "in_batched", "out_batched",
                 "res_batched", "ct_batched", "exact")

    def __init__(self, fn, size, name, batch_jaxpr, single=False, in_batched=(),
                 out_batched=None, res_batched=None, ct_batched=(), exact=None):
        self.fn, self.size, self.name, self.single = fn, size, name, single
        self.batch_jaxpr = batch_jaxpr
        self.in_batched, self.out_batched = in_batched, out_batched
        self.res_batched, self.ct_batched, self.exact = res_batched, ct_batched, exact

    def __repr__(self):
        return f"vmap({self.fn!r})"

    def __call__(self, *lists, **static):
        lens = [len(lst) for lst in lists]
        flat = [x for lst in lists for x in lst]
        in_b = self.in_batched
        if isinstance(in_b, dict):   # (a bwd: which residuals its fwd gave unbatched)
            res_b = list(in_b.get(_types(lists[0]), ()))
            in_b = res_b + [True] * (lens[0] - len(res_b)) + list(self.ct_batched)
        in_b = list(in_b)[:len(flat)]
        in_b += [True] * (len(flat) - len(in_b))
        avals = [unmapped_aval(core.get_aval(x), 0) if b else core.get_aval(x)
                 for x, b in zip(flat, in_b)]
        struct = [None]

        def body(*xs):
            parts, k = [], 0
            for n in lens:
                parts.append(list(xs[k:k + n]))
                k += n
            res = self.fn(*parts, **static)
            groups = [res] if self.single else list(res)
            # a None (a bwd's zero cotangent) stays None, outside the batched body
            struct[0] = [[x is None for x in g] for g in groups]
            return [x for g in groups for x in g if x is not None]

        with core.extend_axis_env(self.name, self.size):
            closed = core.stage(body, avals)
        outs, dims = self.batch_jaxpr(closed, [0 if b else None for b in in_b], self.size,
                                      self.name, flat)
        # what each output becomes: "b" batched at 0, "u" unbatched (summed), "k" as it is
        want = [("k" if self.res_batched is not None and i == 1 else
                 "b" if self.out_batched is None or self.out_batched[j] else "u")
                for i, g in enumerate(struct[0]) for j, none in enumerate(g) if not none]
        if self.exact and any(w == "u" and d is not None for d, w in zip(dims, want)):
            raise ArgumentTypeError(   # (JAX: a TypeError of its broadcast_in_dim)
                f"{self.exact} under vmap returns a value that depends on the mapped axis "
                f"where the function's own output does not",
                hint="an output computed from unmapped operands only takes its tangent "
                     "(fwd: its value) from them only, e.g. fwd returning `f(x), res`",
                loc=core.current_source_info())
        outs = [matchaxis(o, d, 0, self.size) if w == "b" or (w == "k" and d is not None)
                else reduce_sum(o, (d,)) if d is not None else o
                for o, d, w in zip(outs, dims, want)]
        it = iter(outs)
        groups = [[None if none else next(it) for none in g] for g in struct[0]]
        if self.res_batched is not None:
            self.res_batched[_types(groups[1])] = [
                d is not None for d, w in zip(dims, want) if w == "k"]
        return groups[0] if self.single else tuple(groups)


def _types(xs):
    return tuple((core.get_aval(x).shape, core.get_aval(x).dtype) for x in xs if x is not None)


class _DropConsts:
    """A rule `fn(consts, *lists)` of a batched call whose batched body gained `n`
    leading consts (captured by batching): the rule sees only its own consts."""
    __slots__ = ("fn", "n")

    def __init__(self, fn, n):
        self.fn, self.n = fn, n

    def __repr__(self):
        return repr(self.fn)

    def __call__(self, consts, *lists, **static):
        return self.fn(list(consts)[self.n:], *lists, **static)


# ------------------------------------------- custom_jvp_call / custom_vjp_call printed
# a call's body -> the name of the function it is (JAX's `name=`: the body's debug info)
_call_names: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def named_body(closed, name: str):
    """`closed`, the body of a custom_jvp / custom_vjp call, noted as function `name`'s
    (printed as the equation's `name=`, as JAX prints it); returned."""
    _call_names[closed.jaxpr] = name
    return closed


def _same_name(body, like):
    """`body` (a transformed call body) named as `like`, the body it was made from."""
    name = _call_names.get(like.jaxpr)
    return body if name is None else named_body(body, name)


def _shown_as(renamed: dict, hidden=()):
    """A custom call's printed params, as JAX's pp rules print them: the function's
    `name` (first), `num_consts` only when not 0, the rules by their functions' names
    under `renamed`'s keys, `hidden` ones left out."""
    def shown(params):
        name = _call_names.get(params["call_jaxpr"].jaxpr)
        out = {} if name is None else {"name": name}
        out.update((renamed.get(k, k), v) for k, v in params.items()
                   if k not in hidden and not (k == "num_consts" and not v))
        return out
    return shown


# ---------------------------------------------------------------- custom_jvp_call
class CustomJVPCallPrimitive(core.Primitive):
    """`custom_jvp_call`, whose equations also re-bind in JAX 0.10.2's form:
    `get_bind_params` hands the body and the rule over as `subfuns` (`WrappedFun`s of
    the flat operands; the rule's of all primals then all tangents, returning the
    primal outputs then the tangent outputs) in place of `call_jaxpr`, `jvp_jaxpr_fun`
    and `num_consts` (equinox's `finalise_jaxpr` calls `subfuns[0]`), and `bind` takes
    that form back."""

    def get_bind_params(self, params):
        """JAX 0.10.2's re-bind params of an equation: `subfuns` for the body and rule."""
        new = dict(params)
        call, n, rule = new.pop("call_jaxpr"), new.pop("num_consts"), new.pop("jvp_jaxpr_fun")
        fun = WrappedFun(lambda *xs: core.inline_jaxpr(call.jaxpr, call.consts, xs))
        new["subfuns"] = (fun, WrappedFun(_FlatRule(rule, n)))
        return new

    def bind(self, *args, subfuns=None, **params):
        """Bind with astjax's params, or with JAX's `subfuns=(fun, jvp)` form."""
        if subfuns is not None:
            fun, flat_rule = subfuns
            closed = core.stage(lambda *xs: list(fun.call_wrapped(*xs)),
                                [core.get_aval(a) for a in args])
            body, consts = core.split_consts(closed)
            args = (*consts, *args)
            params = dict(params, call_jaxpr=body, jvp_jaxpr_fun=_RuleOfFlat(flat_rule),
                          num_consts=len(consts))
        return super().bind(*args, **params)


class _FlatRule:
    """A custom_jvp_call's rule `rule(consts, primals, tangents)` called as JAX's
    `jvp(*primals, *tangents)` (consts first in both halves) -> [*primals_out,
    *tangents_out]."""
    __slots__ = ("rule", "n")

    def __init__(self, rule, n):
        self.rule, self.n = rule, n

    def __call__(self, *xs):
        k = len(xs) // 2
        primals = xs[:k]
        tangents = [instantiate(core.Zero(t.aval) if isinstance(t, SymbolicZero) else t)
                    for t in xs[k + self.n:]]
        p_out, t_out = self.rule(list(primals[:self.n]), list(primals[self.n:]), tangents)
        return [*p_out, *t_out]


class _RuleOfFlat:
    """JAX's flat rule `jvp(*primals, *tangents)` as a custom_jvp_call's `rule(consts,
    primals, tangents)` (the consts are the body's captured values: not its own)."""
    __slots__ = ("flat",)

    def __init__(self, flat):
        self.flat = flat

    def __repr__(self):
        return repr(self.flat)

    def __call__(self, consts, primals, tangents):
        outs = list(self.flat.call_wrapped(*primals, *tangents))
        return outs[:len(outs) // 2], outs[len(outs) // 2:]


custom_jvp_call_p = CustomJVPCallPrimitive("custom_jvp_call", multiple_results=True,
                                   higher_order=True)


def _custom_jvp_jvp(tx, primals, tangents, *, call_jaxpr, jvp_jaxpr_fun, num_consts,
                    symbolic_zeros=False, **_):
    consts, args = primals[:num_consts], primals[num_consts:]
    ts = [instantiate(t) for t in tangents[num_consts:]]
    p_out, t_out = jvp_jaxpr_fun(list(consts), list(args), ts)
    return list(p_out), [core.Zero(core.get_aval(p)) if not core.differentiable(core.get_aval(p))
                         else t for p, t in zip(p_out, t_out)]


def _custom_jvp_batch(tx, args, dims, *, call_jaxpr, jvp_jaxpr_fun, num_consts, **params):
    """The mapped operands move to batch dim 0 and the user's rule, written for one
    example, is applied through `_Vmapped`: it sees per-example shapes (`x.shape[0]` is
    the example's size). Each output is mapped as its dependence on the batch says, as
    in JAX (a hijax Variable's state the function writes an unbatched value stays
    unbatched); the rule's tangent of an unmapped one must be unmapped too."""
    frame = core.axis_frame()
    in_b = [d is not None for d in dims]
    args = [matchaxis(x, d, 0, frame.size) if b else x for x, d, b in zip(args, dims, in_b)]
    body, extra, out_b = tx.batch_subjaxpr(call_jaxpr, [0 if b else None for b in in_b],
                                           frame.size, frame.name)
    outs = bind(custom_jvp_call_p, *extra, *args, call_jaxpr=_same_name(body, call_jaxpr),
                jvp_jaxpr_fun=_DropConsts(_Vmapped(
                    jvp_jaxpr_fun, frame.size, frame.name, tx.batch_jaxpr,
                    in_batched=in_b + in_b[num_consts:], out_batched=out_b,
                    exact="a custom_jvp's rule"), len(extra)),
                num_consts=num_consts + len(extra), **params)
    return outs, [0 if b else None for b in out_b]


def _custom_jvp_transpose(tx, cts, *args, call_jaxpr, **_):
    """A call applied to tangents (a custom_jvp function called inside another rule's
    tangent computation: lineax's solve JVP) is transposed as its body, inline (JAX's
    `backward_pass` of the body); the rule is a forward-mode one and plays no part."""
    lin = [core.is_undefined(a) for a in args]
    zero_cts = [isinstance(c, core.Zero) for c in cts]
    if all(zero_cts) or not any(lin):
        return [None] * len(args)
    t = tx.transpose_jaxpr(call_jaxpr, lin, zero_cts)
    outs = tx.inline(t, [a for a in args if not core.is_undefined(a)] +
                     [c for c in cts if not isinstance(c, core.Zero)])
    it = iter(outs)
    return [next(it) if l else None for l in lin]


register(custom_jvp_call_p, **call_rules("call_jaxpr"), jvp=_custom_jvp_jvp, batch=_custom_jvp_batch,
         transpose=_custom_jvp_transpose, source=call_source("call_jaxpr", "custom_jvp function"))
custom_jvp_call_p.pp_shown = _shown_as({"jvp_jaxpr_fun": "jvp"})
custom_jvp_call_p.pp_named = True

# ---------------------------------------------------------------- custom_vjp_call
custom_vjp_call_p = core.new_primitive("custom_vjp_call", multiple_results=True,
                                       higher_order=True)


def _custom_vjp_jvp(tx, primals, tangents, *, call_jaxpr, fwd_jaxpr_thunk, bwd, num_consts,
                    **_):
    consts, args = primals[:num_consts], primals[num_consts:]
    perturbed = [not isinstance(t, core.Zero) for t in tangents[num_consts:]]
    outs, res = fwd_jaxpr_thunk(list(consts), list(args), perturbed=perturbed)
    ts = [instantiate(t) for t in tangents[num_consts:]]
    out_avals = tuple(core.get_aval(o) for o in outs)
    lin = bind(custom_lin_p, *res, *ts, num_res=len(res), bwd=bwd, out_avals=out_avals)
    return list(outs), [t if core.differentiable(a) else core.Zero(a)
                        for t, a in zip(lin, out_avals)]


def _custom_vjp_batch(tx, args, dims, *, call_jaxpr, fwd_jaxpr_thunk, bwd, num_consts,
                      **params):
    """As `_custom_jvp_batch`, with the user's fwd and bwd applied through `_Vmapped`.
    Each output is mapped as its dependence on the batch says (JAX's): an unmapped one
    -- a hijax Variable's state the function writes an unbatched value -- stays so, and
    bwd sees its one cotangent in every example."""
    frame = core.axis_frame()
    # unbatched arguments stay so (JAX's): bwd's cotangent of one is summed over the
    # batch only if it depends on it (a bwd returning a residual: flax's fp8 histories)
    in_b = [d is not None for d in dims]
    res_b: dict = {}   # which residuals fwd gives batched: set by its calls, read by bwd's
    args = [matchaxis(x, d, 0, frame.size) if b else x for x, d, b in zip(args, dims, in_b)]
    body, consts, out_b = tx.batch_subjaxpr(call_jaxpr, [0 if b else None for b in in_b],
                                            frame.size, frame.name)
    outs = bind(custom_vjp_call_p, *consts, *args, call_jaxpr=_same_name(body, call_jaxpr),
                fwd_jaxpr_thunk=_DropConsts(_Vmapped(
                    fwd_jaxpr_thunk, frame.size, frame.name, tx.batch_jaxpr, in_batched=in_b,
                    out_batched=out_b, res_batched=res_b, exact="a custom_vjp's fwd"),
                    len(consts)),
                bwd=_Vmapped(bwd, frame.size, frame.name, tx.batch_jaxpr, single=True,
                             in_batched=res_b, ct_batched=out_b,
                             out_batched=in_b[num_consts:]),
                num_consts=num_consts + len(consts), **params)
    return outs, [0 if b else None for b in out_b]


register(custom_vjp_call_p, **call_rules("call_jaxpr"), jvp=_custom_vjp_jvp, batch=_custom_vjp_batch,
         source=call_source("call_jaxpr", "custom_vjp function"))
custom_vjp_call_p.pp_shown = _shown_as({"fwd_jaxpr_thunk": "fwd"}, ("out_trees",))
custom_vjp_call_p.pp_named = True

# ----------------------------------------------------------------- custom_vmap_call
# A call whose batching is a user rule (`custom_batching.custom_vmap`): batch calls
# `rule(axis_size, in_batched, operands)` on the operands (batched ones at dim 0) for
# (outs, out_batched); jvp differentiates the nested function itself, inlined.
custom_vmap_call_p = core.new_primitive("custom_vmap_call", multiple_results=True,
                                        higher_order=True)


def _custom_vmap_batch(tx, args, dims, *, call_jaxpr, rule, num_consts, **params):
    frame = core.axis_frame()
    if any(d is not None for d in dims[:num_consts]):
        raise ArgumentTypeError("a custom_vmap function closes over a value that is "
                                "batched; pass it as an argument instead")
    args = [matchaxis(x, d, 0, frame.size) if d is not None else x
            for x, d in zip(args, dims)]
    outs, out_batched = rule(frame.size, [d is not None for d in dims[num_consts:]],
                             list(args[num_consts:]))
    return list(outs), [0 if b else None for b in out_batched]


register(custom_vmap_call_p, **call_rules("call_jaxpr"), batch=_custom_vmap_batch,
         jvp=inline_call_jvp("call_jaxpr"),
         source=call_source("call_jaxpr", "custom_vmap function"))

# ------------------------------------ custom_lin: residuals + tangents -> tangent outputs,
# defined by its transpose (the user's bwd)
custom_lin_p = core.new_primitive("custom_lin", multiple_results=True)


def _custom_lin_ae(*avals, num_res, bwd, out_avals, **_):
    return list(out_avals)


def _custom_lin_fail(*args, loc=None, **params):
    raise DifferentiationTypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp "
                                   "function", loc=loc,
                      hint="use reverse mode (grad, vjp, jacrev), or define the function "
                           "with custom_jvp")


def _custom_lin_forward(operands, dims_or_tangents, **params):
    # jvp, and vmap of a linearized custom_vjp (as jacfwd is): forward mode all the
    # same, located at the custom_vjp's call site
    _custom_lin_fail(loc=core.current_source_info())


def _custom_lin_lowering(ctx, *args, **params):
    _custom_lin_fail()


def _custom_lin_transpose(cts, *args, num_res, bwd, out_avals):
    res = args[:num_res]
    if getattr(bwd, "symbolic_zeros", False):  # the rule takes SymbolicZero for no cotangent
        cts = [SymbolicZero(a) if c is None or isinstance(c, core.Zero) else c
               for c, a in zip(cts, out_avals)]
    else:
        cts = [instantiate(c, a) for c, a in zip(cts, out_avals)]
    cts_in = bwd(list(res), cts)
    return [None] * num_res + [None if (c is None or isinstance(c, (core.Zero, SymbolicZero)))
                               else c for c in cts_in]


# (forward mode reaching a custom_vjp's linear part, e.g. jacfwd inside grad: JAX's
# TypeError, as for a jvp of the custom_vjp itself)
register(custom_lin_p, impl=_custom_lin_fail, abstract_eval=_custom_lin_ae,
         lowering=_custom_lin_lowering, transpose=_custom_lin_transpose,
         jvp=_custom_lin_forward, batch=_custom_lin_forward)
custom_lin_p.transposed_at_zero = True   # (the user's bwd may return anything for zeros:
# flax's fp8 amax histories come back as its cotangents)

# --------------------------------------------------------------------- checkpoint
# JAX's `remat2`: its `jaxpr` param is an open Jaxpr, the body's constants its leading
# operands (`body_of` gives the passes the ClosedJaxpr view)
checkpoint_p = core.new_primitive("remat2", multiple_results=True, higher_order=True)


def body_of(jaxpr) -> core.ClosedJaxpr:
    """A `remat2` equation's `jaxpr` param (an open Jaxpr) as a ClosedJaxpr without
    constants; a ClosedJaxpr as it is."""
    return jaxpr if isinstance(jaxpr, core.ClosedJaxpr) else core.ClosedJaxpr(jaxpr, [])


def bind_checkpoint(closed: core.ClosedJaxpr, args, **params):
    """Bind `remat2` computing `closed` on `args`: its constants become leading
    operands, the `jaxpr` param the open Jaxpr (JAX's). Returns the outputs."""
    body, consts = core.split_consts(closed)
    return bind(checkpoint_p, *consts, *args, jaxpr=body.jaxpr, **params)


def _remat_impl(*args, jaxpr, **_):
    return core.eval_closed(body_of(jaxpr), *args)


def _remat_ae(*avals, jaxpr, **_):
    return list(body_of(jaxpr).out_avals)


def _remat_lowering(ctx, *args, jaxpr, prevent_cse=True, differentiated=False, **_):
    if isinstance(prevent_cse, tuple):  # one flag per argument: any of them
        prevent_cse = any(prevent_cse)
    if differentiated and prevent_cse and args:
        # the recomputation must not be merged with the forward pass's values (XLA's
        # CSE would undo the checkpoint): its inputs go through a barrier, as in JAX
        args = ctx.op("stablehlo.optimization_barrier", list(args), list(ctx.avals_in))
    return ctx.lower_jaxpr(body_of(jaxpr).jaxpr, [], list(args))


def _remat_jvp(tx, primals, tangents, *, jaxpr, prevent_cse=True, differentiated=False,
               policy=None):
    jaxpr = body_of(jaxpr)
    nz = [not isinstance(t, core.Zero) for t in tangents]
    jv, out_nz = tx.jvp_jaxpr(jaxpr, nz, instantiate=False)
    outs = bind_checkpoint(jv, [*primals, *[t for t in tangents if not isinstance(t, core.Zero)]],
                           prevent_cse=prevent_cse, differentiated=differentiated, policy=policy)
    n = len(jaxpr.out_avals)
    it = iter(outs[n:])
    return outs[:n], [next(it) if z else core.Zero(a) for z, a in zip(out_nz, jaxpr.out_avals)]


def _remat_partial_eval(tx, eqn, in_uk):
    # The policy splits the body (tx.split_checkpoint, transforms/remat.py): the known
    # side computes the known outputs and the values the policy saves; the unknown
    # side, a differentiated `checkpoint`, recomputes the rest from them.
    k_eqn, s_eqn, out_uk, out_inst, _ = tx.split_checkpoint(eqn, in_uk,
                                                             eqn.params.get("policy"))
    if not any(out_uk):
        return [k_eqn], [], out_uk
    # keep the unknown outputs only (the staged side may recompute known ones too)
    u_eqn, _ = _remat_dce(tx, s_eqn, [u for u, i in zip(out_uk, out_inst) if i])
    return [k_eqn], [u_eqn], out_uk


def _remat_transpose(tx, cts, *args, jaxpr, prevent_cse=True, policy=None, **_):
    jaxpr = body_of(jaxpr)
    lin = [core.is_undefined(a) for a in args]
    # The body reads primal values (residuals) and tangents: split its primal
    # recomputation (outputs reading no linear input) off first and run it forward.
    # Transposed whole, the JVP of a checkpoint nested inside would count its primal
    # outputs as linear ("mul of two linear values"). The recomputation and the
    # transpose form one differentiated `checkpoint`, as JAX's, so that neither
    # astjax's CSE nor XLA's merges the recomputation with the forward pass.
    known, unknown, out_uk, nres = tx.partial_eval_jaxpr(jaxpr, lin, instantiate=False)
    u_cts = [c for c, u in zip(cts, out_uk) if u]
    zero_cts = [isinstance(c, core.Zero) for c in u_cts]
    bt = tx.transpose_jaxpr(unknown, [False] * nres + [True] * sum(lin), zero_cts)
    primal = [a for a in args if not core.is_undefined(a)]
    nz_cts = [c for c in u_cts if not isinstance(c, core.Zero)]

    def backward(*xs):
        k_outs = tx.inline(known, xs[:len(primal)])
        return tx.inline(bt, k_outs[len(k_outs) - nres:] + list(xs[len(primal):]))

    staged = core.stage(backward, [core.get_aval(x) for x in primal + nz_cts])
    outs = bind_checkpoint(staged, [*primal, *nz_cts], prevent_cse=prevent_cse,
                           differentiated=True, policy=policy)
    it = iter(outs)
    return [next(it) if l else None for l in lin]


def _remat_dce(tx, eqn, used_outputs):
    j, used_in = tx.dce_jaxpr(body_of(eqn.params["jaxpr"]).jaxpr, used_outputs,
                              prune_invars=True)
    new = eqn.replace(invars=[a for a, u in zip(eqn.invars, used_in) if u],
                      outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u],
                      params=dict(eqn.params, jaxpr=j))
    return new, used_in


def _remat_batch(tx, args, dims, *, jaxpr, **params):
    frame = core.axis_frame()
    body, consts, mapped = tx.batch_subjaxpr(body_of(jaxpr), list(dims), frame.size, frame.name)
    outs = bind_checkpoint(body, [*consts, *args], **params)
    return outs, [0 if m else None for m in mapped]


register(checkpoint_p, impl=_remat_impl, abstract_eval=_remat_ae, lowering=_remat_lowering,
         jvp=_remat_jvp, partial_eval=_remat_partial_eval, transpose=_remat_transpose,
         dce=_remat_dce, batch=_remat_batch,
         source=call_source("jaxpr", "checkpoint"))

# -------------------------------------------------------------------------- name
# `checkpoint_name(x, name)`: the identity, naming `x` for the name-based remat
# policies (they see `name` as the primitive and `name=` in the params). The tangent
# is not named. Printed as source, the value is passed on unnamed.
name_p = core.new_primitive("name")


def _name_batch(args, dims, *, name):
    return name_p.bind(args[0], name=name), dims[0]


register(name_p, impl=lambda x, *, name: x, abstract_eval=lambda x, *, name: x,
         lowering=lambda ctx, x, *, name: [x],
         jvp=lambda primals, tangents, *, name: (name_p.bind(primals[0], name=name),
                                                 tangents[0]),
         batch=_name_batch, source=lambda gen, eqn: gen.arg(eqn.invars[0]))
