# expect: AstjaxError TypeError
# jax: TypeError (TypeError): g() takes 1 positional argument but 2 were given
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def g(x):
    return x + 1

def f(x):
    return g(x, x)  # error

astjax.jit(f)(1.0)
