# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, y):
    return x * y

assert astjax.vmap(f, in_axes=[0, 0])(jnp.ones(3), jnp.ones(3)).tolist() == [1.0, 1.0, 1.0]
