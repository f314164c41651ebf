# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): vmap out_axes specification must be a tree prefix of the corresponding value; 
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

def f(a):
    return a * 2

astjax.vmap(f, out_axes=(0, 0))(jnp.ones((2, 3)))  # error
