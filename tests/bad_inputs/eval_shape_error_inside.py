# expect: ShapeError TypeError
# jax: TypeError (TypeError): dot_general requires contracting dimensions to have the same shape, got (3,) and (5,).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x @ jnp.ones(5)  # error

astjax.eval_shape(f, jnp.ones(3))
