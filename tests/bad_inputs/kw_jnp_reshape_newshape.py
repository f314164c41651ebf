# expect: ArityError TypeError
# jax: TypeError (TypeError): reshape() got an unexpected keyword argument 'newshape'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.reshape(x, newshape=(3, 1))  # error

astjax.jit(f)(jnp.ones(3))
