# expect: ShapeError TypeError
# jax: TypeError (TypeError): add got incompatible shapes for broadcasting: (3,), (4,).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, y):
    return x + y  # error

astjax.jit(f)(np.ones(3), np.ones(4))
