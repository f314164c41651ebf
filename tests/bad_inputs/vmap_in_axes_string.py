# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): vmap in_axes must be an int, None, or a tuple of entries corresponding to the positional arguments passed to the function, but got 0.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

astjax.vmap(f, in_axes="0")(jnp.ones((2, 3)))  # error
