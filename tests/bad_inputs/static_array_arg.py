# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Non-hashable static arguments are not supported. An error occurred while trying to hash an object of type <class 'jaxlib._jax.ArrayImpl'>, [1. 1.]. The error wa
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, n):
    return x * n

astjax.jit(f, static_argnums=1)(1.0, jnp.ones(2))  # error
