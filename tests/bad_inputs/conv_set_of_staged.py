# expect: AstjaxError TypeError
# jax: TypeError (TypeError): unhashable type: 'DynamicJaxprTracer'
# xfail: staged values are hashable by identity (core.Tracer defines __hash__): {x.sum(), x.sum()} has 2 elements; JAX raises TypeError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x + len({x.sum(), x.sum()})  # error

astjax.jit(f)(jnp.ones(3))
