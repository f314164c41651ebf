# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

def f(x):
    return x * 2

y, f_lin = astjax.linearize(f, jnp.arange(3))
assert y.tolist() == [0, 2, 4]
