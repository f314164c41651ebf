# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    for ag__ in range(3):
        x = x + ag__
    return x

assert float(astjax.jit(f)(0.0)) == 3.0
