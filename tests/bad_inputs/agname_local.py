# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    ag__ = x * 2
    return ag__ + 1

assert float(astjax.jit(f)(2.0)) == 5.0
