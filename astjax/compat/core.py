"""`jax.core`: the names JAX 0.10.2's `jax.core` has, over astjax's IR -- no more
(a library that feature-tests `hasattr(jax.core, name)` takes JAX 0.10.2's path).
`Tracer` is astjax's staged value, so `isinstance(x, jax.core.Tracer)` tells staged
from concrete as it does under JAX. The names JAX moved to `jax.extend.core` are
there; `jax._src.core` (astjax/compat/_src/core.py) keeps the internals libraries read."""
from astjax.config_api import ensure_compile_time_eval  # noqa: F401
from astjax.core import AbstractValue, Tracer, inline_jaxpr as _inline_jaxpr  # noqa: F401
from astjax.extend.core import Literal as _Literal, ShapedArray, Trace, Var as _Var  # noqa: F401
from astjax.shape_poly_expr import max_dim, min_dim  # noqa: F401

Atom = (_Var, _Literal)


def eval_jaxpr(jaxpr, consts, *args, propagate_source_info=True):
    """Evaluate `jaxpr` by binding its equations (so it can be staged again)."""
    return _inline_jaxpr(jaxpr, consts, args)
