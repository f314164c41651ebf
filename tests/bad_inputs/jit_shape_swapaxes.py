# expect: AstjaxError IndexError
# jax: IndexError (IndexError): index 2 is out of bounds for axis 0 with size 1
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.swapaxes(x, 0, 2)  # error

astjax.jit(f)(jnp.ones(4))
