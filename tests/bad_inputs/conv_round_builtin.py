# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x + round(x.sum())  # error

astjax.jit(f)(jnp.ones(3))
