# expect: AstjaxError TypeError
# jax: TypeError (TypeError): As of JAX v0.7, parameters to jaxpr equations must have __hash__ and __eq__ methods. In a call to primitive tile, the value of parameter reps was not hashable: 
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.tile(x, x.sum().astype(int))  # error

astjax.jit(f)(jnp.ones(3))
