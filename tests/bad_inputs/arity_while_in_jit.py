# expect: AstjaxError TypeError
# jax: TypeError (TypeError): f.<locals>.<lambda>() missing 1 required positional argument: 'b'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return lax.while_loop(lambda a, b: a < 3, lambda a: a + 1, x)  # error

astjax.jit(f)(0.0)
