# expect: AstjaxError ValueError
# jax: ValueError (ValueError): vmap must have at least one non-None value in in_axes or axis_size must be specified
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

astjax.vmap(f, in_axes=None)(jnp.ones(3))  # error
