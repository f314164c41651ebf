# expect: ShapeError TypeError
# jax: TypeError (TypeError): transpose permutation isn't a permutation of operand dimensions, got permutation (0, 0) for operand shape (2, 2).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.transpose(x, (0, 0))  # error

astjax.jit(f)(np.ones((2, 2)))
