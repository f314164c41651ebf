# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, n, m):
    return jnp.zeros((n, m)) + x

assert astjax.jit(f, static_argnames=('n', 'm'))(1.0, n=2, m=3).shape == (2, 3)
