# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Incompatible shapes for broadcasting: shapes=[(4,), (4,), (5,)]
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.where(x > 0, x, jnp.zeros(5))  # error

astjax.jit(f)(jnp.ones(4))
