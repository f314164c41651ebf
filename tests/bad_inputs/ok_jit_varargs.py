# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(*xs):
    return sum(xs)

assert float(astjax.jit(f)(1.0, 2.0, 3.0)) == 6.0
