# expect: ArgumentError ValueError
# xfail: ArgumentError is not yet a ValueError where JAX raises ValueError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x

astjax.vmap(f, in_axes=2)(np.ones((2, 3)))  # error
