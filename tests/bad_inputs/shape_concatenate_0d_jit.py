# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Zero-dimensional arrays cannot be concatenated.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.concatenate([x[0], x[1]])  # error

astjax.jit(f)(jnp.ones(3))
