# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return lax.fori_loop(0, x.sum().astype(int), lambda i, c: c + 1.0, 0.0) + x  # error

assert float(astjax.jit(f)(jnp.ones(3))[0]) == 4.0
