"""Primitives that exist for autodiff: `stop_gradient` (identity, zero derivative),
`custom_jvp_call` / `custom_vjp_call` (a function with a user-defined derivative),
`custom_lin` (the linear part of a custom_vjp, transposed by the user's bwd),
`checkpoint` (rematerialization). Their AD rules live in `transforms.ad_custom`."""
from __future__ import annotations

from .. import core
from .base import mark_unsupported, register

# ---- stop_gradient ----------------------------------------------------------------
stop_gradient_p = core.new_primitive("stop_gradient")
register(stop_gradient_p, impl=lambda x: x, abstract_eval=lambda x: x,
         lowering=lambda ctx, x: x)


# ---- calls of a nested jaxpr: custom_jvp_call, custom_vjp_call, checkpoint --------
def _call_impl(*args, call_jaxpr, **_):
    return core.eval_closed(call_jaxpr, *args)


def _call_ae(*avals, call_jaxpr, **_):
    return list(call_jaxpr.out_avals)


def _call_lowering(ctx, *args, call_jaxpr, **_):
    return ctx.lower_jaxpr(call_jaxpr.jaxpr, [], list(args))


custom_jvp_call_p = core.new_primitive("custom_jvp_call", multiple_results=True)
register(custom_jvp_call_p, impl=_call_impl, abstract_eval=_call_ae, lowering=_call_lowering)

custom_vjp_call_p = core.new_primitive("custom_vjp_call", multiple_results=True)
register(custom_vjp_call_p, impl=_call_impl, abstract_eval=_call_ae, lowering=_call_lowering)

checkpoint_p = core.new_primitive("checkpoint", multiple_results=True)


def _remat_impl(*args, jaxpr, **_):
    return core.eval_closed(jaxpr, *args)


def _remat_ae(*avals, jaxpr, **_):
    return list(jaxpr.out_avals)


def _remat_lowering(ctx, *args, jaxpr, **_):
    return ctx.lower_jaxpr(jaxpr.jaxpr, [], list(args))


register(checkpoint_p, impl=_remat_impl, abstract_eval=_remat_ae, lowering=_remat_lowering)

# ---- custom_lin: residuals + tangents -> tangent outputs, defined by its transpose --
custom_lin_p = core.new_primitive("custom_lin", multiple_results=True)


def _custom_lin_ae(*avals, num_res, bwd, out_avals, **_):
    return list(out_avals)


def _custom_lin_fail(*args, **params):
    from ..errors import AstjaxError
    raise AstjaxError("can't apply forward-mode autodiff (jvp) to a custom_vjp function",
                      hint="use reverse mode (grad, vjp, jacrev), or define the function "
                           "with custom_jvp")


def _custom_lin_lowering(ctx, *args, **params):
    _custom_lin_fail()


register(custom_lin_p, impl=_custom_lin_fail, abstract_eval=_custom_lin_ae,
         lowering=_custom_lin_lowering)
mark_unsupported(custom_lin_p, "jvp", "the linear part of a custom_vjp is only transposed")
