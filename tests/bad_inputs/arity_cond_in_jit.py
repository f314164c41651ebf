# expect: AstjaxError TypeError
# jax: TypeError (TypeError): f.<locals>.<lambda>() takes 0 positional arguments but 1 was given
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return lax.cond(x > 0, lambda: x, lambda: -x, x)  # error

astjax.jit(f)(1.0)
