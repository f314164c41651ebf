# expect: ShapeError TypeError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x.reshape(4, 2)  # error

astjax.jit(f)(np.ones(6))
