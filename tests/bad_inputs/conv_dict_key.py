# expect: AstjaxError TypeError
# jax: TypeError (TypeError): unhashable type: 'DynamicJaxprTracer'
# xfail: staged values are hashable by identity (core.Tracer __hash__), so a dict lookup by a staged key is a raw KeyError; JAX raises TypeError (unhashable)
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return {x.sum(): 1}[x.sum()] + x  # error

astjax.jit(f)(jnp.ones(3))
