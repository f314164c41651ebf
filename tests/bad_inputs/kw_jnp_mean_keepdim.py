# expect: ArityError TypeError
# jax: TypeError (TypeError): mean() got an unexpected keyword argument 'keepdim'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.mean(x, keepdim=True)  # error

astjax.jit(f)(jnp.ones(3))
