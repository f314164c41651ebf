# expect: ArityError TypeError
# jax: TypeError (TypeError): concatenate() got an unexpected keyword argument 'dim'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.concatenate([x, x], dim=0)  # error

astjax.jit(f)(jnp.ones(3))
