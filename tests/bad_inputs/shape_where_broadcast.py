# expect: ShapeValueError ValueError
# jax: ValueError (ValueError): Incompatible shapes for broadcasting: shapes=[(2,), (3,), (3,)]
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(c, x, y):
    return jnp.where(c, x, y)  # error

astjax.jit(f)(np.ones(2, bool), np.ones(3), np.ones(3))
