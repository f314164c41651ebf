"""`linear_call`: a call of a function linear in some operands, with a user-given
transpose (`custom_derivatives.linear_call`; the public wrapper stages both functions
and lives in `astjax.custom_api`).

The equation's params: `callee`, a consts-free closed jaxpr taking `num_callee_consts`
consts, `num_res` residual operands and then the linear operands; `transpose_thunk`,
a memoized zero-argument function giving (the transpose's closed jaxpr taking its
consts, the residuals and the output cotangents; its consts). Its rules, in one block:

- impl / lowering: the callee, evaluated or lowered inline (a call);
- jvp: linear in the linear operands, so the tangent is the same call on their
  tangents; a nonzero tangent of a residual is a located error (JAX asserts there);
- transpose: another `linear_call`, of the transpose, whose own transpose is the
  callee again (so transposing twice gives the callee back);
- batch: every operand brought to batch dim 0, the callee batched with every output
  batched, and the transpose thunk replaced by one batching the transpose the same
  way (JAX 0.10.2 has no batching rule here);
- source: printed inline (the numbers are the same; the custom transpose is not kept).
"""
from __future__ import annotations

import functools

from .. import core
from ..core import bind
from ..errors import DifferentiationTypeError
from .base import call_source, instantiate, matchaxis, register

__all__ = ["linear_call_p"]

linear_call_p = core.new_primitive("linear_call", multiple_results=True, higher_order=True)


def _lc_impl(*args, callee, **_):
    return core.eval_closed(callee, *args)


def _lc_ae(*avals, callee, **_):
    return list(callee.out_avals)


def _lc_lowering(ctx, *args, callee, **_):
    return ctx.lower_jaxpr(callee.jaxpr, [], list(args))


def _lc_jvp(tx, primals, tangents, *, callee, transpose_thunk, num_callee_consts, num_res):
    nfixed = num_callee_consts + num_res
    params = dict(callee=callee, transpose_thunk=transpose_thunk,
                  num_callee_consts=num_callee_consts, num_res=num_res)
    if any(not isinstance(t, core.Zero) for t in tangents[:nfixed]):
        raise DifferentiationTypeError(
            "linear_call is differentiable only in its linear arguments, not in its "
            "residual arguments (nor in values its function closes over)",
            hint="pass what is differentiated as a linear argument, or wrap the residual "
                 "in lax.stop_gradient")
    outs = bind(linear_call_p, *primals, **params)
    lin_t = tangents[nfixed:]
    if all(isinstance(t, core.Zero) for t in lin_t):
        return outs, [core.Zero(a) for a in callee.out_avals]
    lin_t = [instantiate(t, core.get_aval(p)) for t, p in zip(lin_t, primals[nfixed:])]
    return outs, bind(linear_call_p, *primals[:nfixed], *lin_t, **params)


def _lc_transpose(tx, cts, *args, callee, transpose_thunk, num_callee_consts, num_res):
    nfixed = num_callee_consts + num_res
    if any(core.is_undefined(a) for a in args[:nfixed]):
        raise DifferentiationTypeError(
            "linear_call is linear only in its linear arguments: a residual argument "
            "depends on the value being transposed",
            hint="pass it as a linear argument instead")
    t_closed, t_consts = transpose_thunk()
    f_consts, res = list(args[:num_callee_consts]), list(args[num_callee_consts:nfixed])
    cts = [instantiate(c, a) for c, a in zip(cts, callee.out_avals)]
    cts_in = bind(linear_call_p, *t_consts, *res, *cts, callee=t_closed,
                  transpose_thunk=lambda: (callee, f_consts),
                  num_callee_consts=len(t_consts), num_res=num_res)
    return [None] * nfixed + [c if core.is_undefined(a) else None
                              for c, a in zip(cts_in, args[nfixed:])]


def _lc_batch(tx, args, dims, *, callee, transpose_thunk, num_callee_consts, num_res):
    frame = core.axis_frame()
    size, name = frame.size, frame.name
    args = [matchaxis(x, d, 0, size) for x, d in zip(args, dims)]
    n_out, n_lin = len(callee.out_avals), len(args) - num_callee_consts - num_res
    body, extra, _ = tx.batch_subjaxpr(callee, [0] * len(args), size, name,
                                       force_out=[True] * n_out)

    @functools.cache
    def batched_transpose():
        t_closed, t_consts = transpose_thunk()
        dims_t = [None] * len(t_consts) + [0] * (num_res + n_out)
        tb, t_extra, _ = tx.batch_subjaxpr(t_closed, dims_t, size, name,
                                           force_out=[True] * n_lin)
        return tb, list(t_extra) + list(t_consts)

    outs = bind(linear_call_p, *extra, *args, callee=body, transpose_thunk=batched_transpose,
                num_callee_consts=len(extra) + num_callee_consts, num_res=num_res)
    return outs, [0] * n_out


register(linear_call_p, impl=_lc_impl, abstract_eval=_lc_ae, lowering=_lc_lowering,
         jvp=_lc_jvp, transpose=_lc_transpose, batch=_lc_batch,
         source=call_source("callee", "linear_call"))
