# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x + 1.0

assert astjax.vmap(f, in_axes=None, axis_size=3)(2.0).shape == (3,)
