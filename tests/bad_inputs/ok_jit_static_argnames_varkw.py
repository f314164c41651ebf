# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

def f(x, **kw):
    return x * kw['k']

y = astjax.jit(f, static_argnames='k')(jnp.ones(2), k=3)
assert y.tolist() == [3.0, 3.0]
