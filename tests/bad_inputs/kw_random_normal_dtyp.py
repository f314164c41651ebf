# expect: ArityError TypeError
# jax: TypeError (TypeError): normal() got an unexpected keyword argument 'dtyp'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return astjax.random.normal(astjax.random.PRNGKey(0), (3,), dtyp=jnp.float32) + x  # error

astjax.jit(f)(jnp.ones(3))
