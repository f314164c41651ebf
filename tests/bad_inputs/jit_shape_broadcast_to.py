# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Incompatible types for broadcasting: input type=float32[4] and requested type=float32[3]
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.broadcast_to(x, (3,))  # error

astjax.jit(f)(jnp.ones(4))
