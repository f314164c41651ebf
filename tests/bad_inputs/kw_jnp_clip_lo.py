# expect: ArityError TypeError
# jax: TypeError (TypeError): clip() got an unexpected keyword argument 'lo'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.clip(x, lo=0.0)  # error

astjax.jit(f)(jnp.ones(3))
