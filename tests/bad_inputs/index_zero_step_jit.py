# expect: AstjaxError ValueError
# jax: ValueError (ValueError): slice step cannot be zero
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x[::0]  # error

astjax.jit(f)(jnp.ones(3))
