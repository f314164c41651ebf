# expect: NonConcreteBooleanIndexError IndexError
# jax: IndexError (NonConcreteBooleanIndexError): Array boolean indices must be concrete; got bool[3]
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x[x > 1]  # error

astjax.jit(f)(jnp.ones(3))
