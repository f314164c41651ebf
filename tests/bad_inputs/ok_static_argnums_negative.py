# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, n):
    return jnp.zeros(n) + x

assert astjax.jit(f, static_argnums=-1)(1.0, 2).shape == (2,)
