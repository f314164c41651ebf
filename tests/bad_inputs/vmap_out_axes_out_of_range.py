# expect: AstjaxError ValueError
# jax: ValueError (ValueError): axis 2 is out of bounds for array of dimension 1
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

astjax.vmap(f, out_axes=2)(jnp.ones(3))  # error
