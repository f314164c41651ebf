# expect: ConcretizationError TypeError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(n):
    return jnp.arange(n)  # error

astjax.jit(f)(4)
