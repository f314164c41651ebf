"""`jax._src.core`: JAX's internal core names libraries still read (most moved to
`jax.extend.core` in JAX 0.10; `jax.core` keeps only its public few), over astjax's IR."""
from astjax.compat.core import *  # noqa: F401,F403
from astjax.compat.core import Atom, ShapedArray, Tracer, eval_jaxpr  # noqa: F401
from astjax.core import UndefinedPrimal, Zero, abstract_token, get_aval  # noqa: F401
from astjax.extend.core import (ClosedJaxpr, DropVar, Jaxpr, JaxprEqn, Literal,  # noqa: F401
                                Primitive, TraceTag, Var, get_opaque_trace_state,
                                jaxpr_as_fun, mapped_aval, set_current_trace,
                                take_current_trace, unmapped_aval)
from astjax.ir import sub_jaxprs as _sub_jaxprs
from astjax.trace_state import _state as _trace_state

jaxpr_as_fn = jaxpr_as_fun


def trace_state_clean() -> bool:
    """Whether this thread is at top level: nothing being staged (`jit`, `grad`,
    `vmap`, ... of a function in progress), no mapped axis in scope and no library
    trace current (numpyro asks before caching a function)."""
    return not (_trace_state.builders or _trace_state.axis_frames
                or _trace_state.user_traces)


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
