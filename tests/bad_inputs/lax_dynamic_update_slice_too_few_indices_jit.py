# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Length of slice indices must match number of operand dimensions (1 vs (3, 3))
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return lax.dynamic_update_slice(x, jnp.ones((1, 1)), (0,))  # error

astjax.jit(f)(jnp.ones((3, 3)))
