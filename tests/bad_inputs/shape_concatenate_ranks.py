# expect: ShapeError TypeError
# jax: TypeError (TypeError): Cannot concatenate arrays with different numbers of dimensions: got (2, 2), (3,).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, y):
    return jnp.concatenate([x, y])  # error

astjax.jit(f)(np.ones((2, 2)), np.ones(3))
