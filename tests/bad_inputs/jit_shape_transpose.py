# expect: AstjaxError ValueError
# jax: ValueError (ValueError): axis 1 is out of bounds for array of dimension 1
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x.transpose((1, 0))  # error

astjax.jit(f)(jnp.ones(4))
