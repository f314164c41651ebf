# expect: AstjaxError ValueError
# jax: ValueError (ValueError): axis 3 is out of bounds for array of dimension 2
# xfail: R12: numpy/shapes.py:expand_dims normalises the axis with % ndim and never range-checks it (silently wrong shape); JAX raises ValueError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.expand_dims(x, 3)  # error

astjax.jit(f)(jnp.ones(4))
