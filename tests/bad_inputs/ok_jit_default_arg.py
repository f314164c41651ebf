# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, y=2.0):
    return x * y

assert float(astjax.jit(f)(1.0)) == 2.0
