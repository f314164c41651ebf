# expect: ShapeError TypeError
# jax: TypeError (TypeError): dot_general requires contracting dimensions to have the same shape, got (4,) and (3,).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.dot(x, jnp.ones(3))  # error

astjax.jit(f)(jnp.ones(4))
