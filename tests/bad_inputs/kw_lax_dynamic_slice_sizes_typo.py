# expect: ArityError TypeError
# jax: TypeError (TypeError): dynamic_slice() got an unexpected keyword argument 'size'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return lax.dynamic_slice(x, (0,), size=(2,))  # error

astjax.jit(f)(jnp.ones(3))
