# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(ag__):
    return ag__ * 2

assert float(astjax.jit(f)(2.0)) == 4.0
