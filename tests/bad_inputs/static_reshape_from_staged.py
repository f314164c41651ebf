# expect: ConcretizationError TypeError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, n):
    return x.reshape(n, -1)  # error

astjax.jit(f)(np.ones(6), 2)
