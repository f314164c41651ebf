# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): vmap out_axes must be an int, None, or (nested) container with those types as leaves, but got 0.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

astjax.vmap(f, out_axes="0")(jnp.ones((2, 3)))  # error
