# expect: ShapeError TypeError
# jax: TypeError (TypeError): cannot reshape array of shape (4,) (size 4) into shape (3, 3) (size 9)
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x.reshape(3, 3)  # error

astjax.jit(f)(jnp.ones(4))
