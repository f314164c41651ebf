# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, n):
    return jnp.zeros(n) + x

assert astjax.jit(f, static_argnames='n')(1.0, n=3).shape == (3,)
