# expect: ArgumentError ValueError
# jax: ValueError (ValueError): vmap in_axes specification must be a tree prefix of the corresponding value; 
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(p):
    return p['a'] + p['b']

astjax.vmap(f, in_axes=({'a': 0},))({'a': jnp.ones(3), 'b': jnp.ones(3)})  # error
