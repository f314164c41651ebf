# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

def f(a):
    return a * 2

y = astjax.vmap(f, in_axes=None, axis_size=0)(jnp.ones(3))
assert y.shape == (0, 3)
