# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): vmap in_axes specification must be a tree prefix of the corresponding value; 
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

def f(xs):
    return xs[0] + xs[1]

astjax.vmap(f, in_axes=({'a': 0},))([jnp.ones(2), jnp.ones(2)])  # error
