# expect: DTypeError TypeError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x & 1  # error

astjax.jit(f)(np.ones(2, np.float32))
