# expect: ShapeError TypeError
# jax: TypeError (TypeError): cannot reshape array of shape (6,) (size 6) into shape (4, 2) (size 8)
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x.reshape(4, 2)  # error

astjax.jit(f)(np.ones(6))
