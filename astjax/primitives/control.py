"""Structured control flow: `cond`, `while`, `scan`, with JAX's names and params.

Nested jaxprs are ClosedJaxprs without consts: everything a branch or body reads
from outside is an explicit operand (see `lax_control.closure_convert`).
- cond[branches] index *ops                      -> stablehlo.case
- while[cond_jaxpr body_jaxpr cond_nconsts body_nconsts] *cc *bc *carry
                                                 -> stablehlo.while
- scan[jaxpr length reverse num_consts num_carry unroll] *consts *carry *xs
                                                 -> stablehlo.while over an index,
                                                    dynamic_slice / dynamic_update_slice
"""
from __future__ import annotations

import numpy as np

from .. import core, dtypes
from ..core import ShapedArray
from ..errors import DTypeError, LoopCarryError, ShapeError
from .base import register


def _types_match(avals_a, avals_b):
    return len(avals_a) == len(avals_b) and all(
        a.shape == b.shape and a.dtype == b.dtype for a, b in zip(avals_a, avals_b))


def _fmt(avals):
    return "(" + ", ".join(a.str_short() for a in avals) + ")"

# ---- cond -------------------------------------------------------------------------
cond_p = core.new_primitive("cond", multiple_results=True)


def _cond_ae(index, *ops, branches):
    if index.shape != () or index.dtype != dtypes.int32:
        raise DTypeError(f"cond index must be an int32 scalar, got {index.str_short()}")
    outs = branches[0].out_avals
    for br in branches:
        if not _types_match(br.in_avals, ops):
            raise ShapeError(f"cond branch takes {_fmt(br.in_avals)}, operands are {_fmt(ops)}")
        if not _types_match(br.out_avals, outs):
            raise ShapeError(f"cond branches return different types: {_fmt(outs)} and "
                             f"{_fmt(br.out_avals)}")
    return [a.update(weak_type=all(br.out_avals[i].weak_type for br in branches))
            for i, a in enumerate(outs)]


def _cond_impl(index, *ops, branches):
    i = int(np.clip(int(index), 0, len(branches) - 1))
    return core.eval_closed(branches[i], *ops)


def _cond_lowering(ctx, index, *ops, branches):
    regions = [ctx.region([], lambda br=br: ctx.lower_jaxpr(br.jaxpr, [], list(ops)))
               for br in branches]
    return ctx.op("stablehlo.case", [index], regions=regions)


register(cond_p, impl=_cond_impl, abstract_eval=_cond_ae, lowering=_cond_lowering)

# ---- while ------------------------------------------------------------------------
while_p = core.new_primitive("while", multiple_results=True)


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
    return list(carry)


def _while_impl(*args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    cc = args[:cond_nconsts]
    bc = args[cond_nconsts:cond_nconsts + body_nconsts]
    carry = list(args[cond_nconsts + body_nconsts:])
    while bool(core.eval_closed(cond_jaxpr, *cc, *carry)[0]):
        carry = core.eval_closed(body_jaxpr, *bc, *carry)
    return carry


def _while_lowering(ctx, *args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    avals = ctx.avals_in
    nc = cond_nconsts + body_nconsts

    def cond_body(*xs):
        return ctx.lower_jaxpr(cond_jaxpr.jaxpr, [], list(xs[:cond_nconsts]) + list(xs[nc:]))

    def body_body(*xs):
        new = ctx.lower_jaxpr(body_jaxpr.jaxpr, [], list(xs[cond_nconsts:nc]) + list(xs[nc:]))
        return list(xs[:nc]) + new

    outs = ctx.op("stablehlo.while", list(args), out_avals=list(avals),
                  regions=[ctx.region(avals, cond_body), ctx.region(avals, body_body)])
    return outs[nc:]


register(while_p, impl=_while_impl, abstract_eval=_while_ae, lowering=_while_lowering)

# ---- scan -------------------------------------------------------------------------
scan_p = core.new_primitive("scan", multiple_results=True)


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
    return list(carry) + ys


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
    if unroll is True or (int(unroll) >= length):
        return _scan_unrolled(ctx, consts, carry, xs, x_av, y_avals, jaxpr, length, reverse)
    i32 = ShapedArray((), dtypes.int32)
    zeros = [ctx.op1("stablehlo.broadcast_in_dim", [ctx.constant(0, a.update(shape=()))], a,
                     attrs={"broadcast_dimensions": ctx.i64([])}) for a in y_avals]
    state_avals = [i32] + c_av + k_av + x_av + list(y_avals)
    init = [ctx.constant(0, i32)] + consts + carry + xs + zeros
    nc, nk, nx = len(consts), len(carry), len(xs)
    steps = _unroll_steps(length, unroll)

    def cond_body(i, *rest):
        lim = ctx.constant(length, i32)
        return [ctx.mb.op("stablehlo.compare", [i, lim], [i32.update(dtype=dtypes.bool_)],
                          {"comparison_direction": "#stablehlo<comparison_direction LT>"})[0]]

    def step(i, cs, ks, xs_, ys):
        idx = ctx.mb.op("stablehlo.subtract", [ctx.constant(length - 1, i32), i], [i32])[0] \
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

    def body_body(i, *rest):
        cs = list(rest[:nc])
        ks = list(rest[nc:nc + nk])
        xs_ = list(rest[nc + nk:nc + nk + nx])
        ys = list(rest[nc + nk + nx:])
        for _ in range(steps):
            i, ks, ys = step(i, cs, ks, xs_, ys)
        return [i] + cs + ks + xs_ + ys

    outs = ctx.op("stablehlo.while", init, out_avals=state_avals,
                  regions=[ctx.region(state_avals, cond_body), ctx.region(state_avals, body_body)])
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


register(scan_p, impl=_scan_impl, abstract_eval=_scan_ae, lowering=_scan_lowering)
