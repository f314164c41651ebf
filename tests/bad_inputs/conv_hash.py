# expect: AstjaxError TypeError
# jax: TypeError (TypeError): unhashable type: 'DynamicJaxprTracer'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x + hash(x.sum())  # error

astjax.jit(f)(jnp.ones(3))
