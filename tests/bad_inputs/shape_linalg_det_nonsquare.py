# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Argument to _det() must have shape [..., n, n], got (2, 3)
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.linalg.det(x)  # error

astjax.jit(f)(jnp.ones((2, 3)))
