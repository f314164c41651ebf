# expect: AstjaxError TypeError
# jax: TypeError (TypeError): f.<locals>.<lambda>() takes 1 positional argument but 2 were given
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(xs):
    return lax.scan(lambda c: (c, c), 0.0, xs)  # error

astjax.jit(f)(jnp.ones(3))
