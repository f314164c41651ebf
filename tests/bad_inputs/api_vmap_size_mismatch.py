# expect: ArgumentError ValueError
# jax: ValueError (ValueError): vmap got inconsistent sizes for array axes to be mapped:
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, y):
    return x + y

astjax.vmap(f)(np.ones(3), np.ones(4))  # error
