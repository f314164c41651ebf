# expect: ArityError TypeError
# jax: TypeError (TypeError): _sum() got an unexpected keyword argument 'axs'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x.sum(axs=0)  # error

astjax.jit(f)(jnp.ones(3))
