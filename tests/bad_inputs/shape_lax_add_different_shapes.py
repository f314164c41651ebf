# expect: ShapeError TypeError
# jax: TypeError (TypeError): add: arrays must have the same number of dimensions, got {1, 2}
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, y):
    return lax.add(x, y)  # error

astjax.jit(f)(np.ones(2, np.float32), np.ones((2, 2), np.float32))
