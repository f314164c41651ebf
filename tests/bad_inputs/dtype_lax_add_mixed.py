# expect: DTypeError TypeError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, y):
    return lax.add(x, y)  # error

astjax.jit(f)(np.ones(2, np.float32), np.ones(2, np.int32))
