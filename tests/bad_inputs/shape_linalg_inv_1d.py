# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Argument to inv must have shape [..., n, n], got (3,).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.linalg.inv(x)  # error

astjax.jit(f)(jnp.ones(3))
