# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

ag__ = 3.0

def f(x):
    return x * ag__

assert float(astjax.jit(f)(2.0)) == 6.0
