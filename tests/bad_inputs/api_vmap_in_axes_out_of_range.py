# expect: ArgumentError ValueError
# jax: ValueError (ValueError): vmap was requested to map its argument along axis 2, which implies that its rank should be at least 3, but is only 2 (its shape is (2, 3))
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x

astjax.vmap(f, in_axes=2)(np.ones((2, 3)))  # error
