# expect: AstjaxError TypeError
# jax: TypeError (TypeError): unhashable type: 'DynamicJaxprTracer'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return {x.sum(): 1}[x.sum()] + x  # error

astjax.jit(f)(jnp.ones(3))
