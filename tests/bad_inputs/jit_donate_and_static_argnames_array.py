# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): Non-hashable static arguments are not supported. An error occurred while trying to hash an object of type <class 'jaxlib._jax.ArrayImpl'>, [1. 1.]. The error wa
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

def f(x, y):
    return x + y

astjax.jit(f, static_argnames='y', donate_argnums=0)(jnp.ones(2), y=jnp.ones(2))  # error
