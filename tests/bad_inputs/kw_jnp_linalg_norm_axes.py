# expect: ArityError TypeError
# jax: TypeError (TypeError): norm() got an unexpected keyword argument 'axes'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.linalg.norm(x, axes=0)  # error

astjax.jit(f)(jnp.ones(3))
