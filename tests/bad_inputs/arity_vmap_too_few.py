# expect: AstjaxError TypeError
# jax: TypeError (TypeError): f() missing 1 required positional argument: 'y'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, y):
    return x * y

astjax.vmap(f)(jnp.ones(3))  # error
