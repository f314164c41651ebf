# expect: AstjaxError ValueError
# jax: ValueError (ValueError): All input arrays must have the same shape. Got (4,), (5,).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.stack([x, jnp.ones(5)])  # error

astjax.jit(f)(jnp.ones(4))
