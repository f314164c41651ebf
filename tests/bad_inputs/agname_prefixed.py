# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    ag__x = x * 2
    return ag__x

assert float(astjax.jit(f)(2.0)) == 4.0
