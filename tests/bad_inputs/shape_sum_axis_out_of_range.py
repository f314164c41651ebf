# expect: AxisError ValueError
# jax: ValueError (ValueError): axis 3 is out of bounds for array of dimension 2
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.sum(x, axis=3)  # error

astjax.jit(f)(np.ones((2, 2)))
