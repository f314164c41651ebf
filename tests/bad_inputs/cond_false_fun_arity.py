# expect: ArityError TypeError
# jax: TypeError (TypeError): fl() missing 1 required positional argument: 'y'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

def t(x):
    return x

def fl(x, y):
    return x

lax.cond(True, t, fl, jnp.ones(3))  # error
