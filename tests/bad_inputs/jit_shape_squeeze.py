# expect: AstjaxError ValueError
# jax: ValueError (ValueError): cannot select an axis to squeeze out which has size not equal to one, got shape=(4,) and dimensions=(0,)
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.squeeze(x, 0)  # error

astjax.jit(f)(jnp.ones(4))
