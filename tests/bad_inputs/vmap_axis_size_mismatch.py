# expect: AstjaxError ValueError
# jax: ValueError (ValueError): vmap got inconsistent sizes for array axes to be mapped:
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

astjax.vmap(f, axis_size=4)(jnp.ones(3))  # error
