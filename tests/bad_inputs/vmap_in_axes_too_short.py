# expect: AstjaxError ValueError
# jax: ValueError (ValueError): vmap in_axes must be an int, None, or a tuple of entries corresponding to the positional arguments passed to the function, but got len(in_axes)=1, len(args)=2
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, y):
    return x * y

astjax.vmap(f, in_axes=(0,))(jnp.ones(3), jnp.ones(3))  # error
