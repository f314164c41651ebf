# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): 'str' object cannot be interpreted as an integer
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

def f(x, n):
    return x * n

astjax.jit(f, static_argnums="1")(jnp.ones(3), 2)  # error
