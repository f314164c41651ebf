# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): vmap got inconsistent sizes for array axes to be mapped:
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

def f(a, b):
    return a + b

astjax.vmap(f, in_axes=(1,))(jnp.ones((2, 3)), b=jnp.ones(2))  # error
