# expect: ShapeError TypeError
# jax: TypeError (TypeError): dot_general requires contracting dimensions to have the same shape, got (3,) and (4,).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x @ jnp.ones(4)  # error

astjax.vmap(f)(jnp.ones((2, 3)))
