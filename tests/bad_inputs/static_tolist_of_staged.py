# expect: ConcretizationError TypeError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x.tolist()  # error

astjax.jit(f)(np.ones(3))
