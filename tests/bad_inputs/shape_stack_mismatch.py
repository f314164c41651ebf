# expect: ShapeValueError ValueError
# jax: ValueError (ValueError): All input arrays must have the same shape. Got (2,), (3,).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, y):
    return jnp.stack([x, y])  # error

astjax.jit(f)(np.ones(2), np.ones(3))
