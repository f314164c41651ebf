# expect: AstjaxError ValueError
# jax: ValueError (ValueError): axis 3 is out of bounds for array of dimension 2
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.stack([x, x], axis=3)  # error

astjax.jit(f)(jnp.ones(3))
