# expect: AstjaxError ValueError
# jax: ValueError (ValueError): invalid literal for int() with base 10: 'JitTracer(float32[])'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x + int(str(x.sum()))  # error

astjax.jit(f)(jnp.ones(3))
