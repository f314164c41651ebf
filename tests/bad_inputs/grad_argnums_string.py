# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): 'str' object cannot be interpreted as an integer
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

def f(x):
    return jnp.sum(x)

astjax.grad(f, argnums="0")(jnp.ones(3))  # error
