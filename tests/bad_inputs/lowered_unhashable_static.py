# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Non-hashable static arguments are not supported. An error occurred while trying to hash an object of type <class 'list'>, [1]. The error was:
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, n):
    return x

astjax.jit(f, static_argnums=1).lower(1.0, [1])  # error
