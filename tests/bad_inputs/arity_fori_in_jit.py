# expect: AstjaxError TypeError
# jax: TypeError (TypeError): f.<locals>.<lambda>() takes 1 positional argument but 2 were given
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return lax.fori_loop(0, 3, lambda c: c + x, x)  # error

astjax.jit(f)(1.0)
