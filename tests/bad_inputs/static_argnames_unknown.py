# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Jitted function has invalid argnames {'nope'} in static_argnames. Function does not take these args.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, y):
    return x + y

astjax.jit(f, static_argnames='nope')  # error
