# expect: NotImplementedInAstjaxError NotImplementedError
# jax: NotImplementedError (NotImplementedError): jnp.argpartition for complex dtype is not implemented.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax



@astjax.jit
def f(z):
    return jnp.argpartition(z, 1)  # error


f(jnp.array([1 + 2j, 3 - 1j, 0j]))
