# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, y):
    return x * y

assert astjax.vmap(f, in_axes=(0, None))(jnp.ones(3), 2.0).shape == (3,)
