# expect: NotImplementedInAstjaxError NotImplementedError
# jax: NotImplementedError (NotImplementedError): jnp.partition for complex dtype is not implemented.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.partition(jnp.array([1 + 2j, 3 - 1j, 0j]), 1)  # error
