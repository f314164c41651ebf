# expect: AstjaxError TypeError
# jax: TypeError (TypeError): f() takes 1 positional argument but 2 were given
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

astjax.vmap(f)(jnp.ones(3), jnp.ones(3))  # error
