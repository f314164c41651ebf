# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Length of slice indices must match number of operand dimensions (2 vs (3,))
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return lax.dynamic_slice(x, (0, 0), (2,))  # error

astjax.jit(f)(jnp.ones(3))
