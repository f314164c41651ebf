# expect: NonConcreteBooleanIndexError IndexError
# jax: IndexError (NonConcreteBooleanIndexError): Array boolean indices must be concrete; got bool[3]
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x.at[x > 0].set(0.0)  # error

astjax.jit(f)(np.array([1.0, -1.0, 2.0]))
