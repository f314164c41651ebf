# expect: AstjaxError ValueError
# jax: ValueError (ValueError): indices and arr must have the same number of dimensions; 2 vs. 1
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.take_along_axis(x, jnp.zeros((2, 2), int), axis=0)  # error

astjax.jit(f)(jnp.ones(4))
