"""`jax.core`: the names libraries read from JAX's core module, over astjax's IR.
`Tracer` is astjax's staged value, so `isinstance(x, jax.core.Tracer)` tells staged
from concrete as it does under JAX."""
from astjax.core import Tracer, UndefinedPrimal, Zero, abstract_token, get_aval  # noqa: F401
from astjax.extend.core import (ClosedJaxpr, DropVar, Jaxpr, JaxprEqn, Literal,  # noqa: F401
                                Primitive, ShapedArray, Trace, TraceTag, Var,
                                get_opaque_trace_state, jaxpr_as_fun, mapped_aval,
                                set_current_trace, take_current_trace, unmapped_aval)
from astjax.ir import sub_jaxprs as _sub_jaxprs
from astjax.shape_poly_expr import max_dim, min_dim  # noqa: F401
from astjax import core as _core

Atom = (Var, Literal)
jaxpr_as_fn = jaxpr_as_fun


def eval_jaxpr(jaxpr, consts, *args, propagate_source_info=True):
    """Evaluate `jaxpr` by binding its equations (so it can be staged again)."""
    return _core.inline_jaxpr(jaxpr, consts, args)


def raise_to_shaped(aval, weak_type=None):
    """The aval itself (astjax's avals are always shaped)."""
    return aval if weak_type is None else aval.update(weak_type=weak_type)


def jaxprs_in_params(params):
    """The jaxprs among an equation's params (sub-programs of control flow)."""
    return [j.jaxpr if isinstance(j, ClosedJaxpr) else j for j in _sub_jaxprs(params)]


def subjaxprs(jaxpr):
    """The jaxprs directly inside `jaxpr`'s equations."""
    for eqn in jaxpr.eqns:
        yield from jaxprs_in_params(eqn.params)
