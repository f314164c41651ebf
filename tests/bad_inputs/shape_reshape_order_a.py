# expect: NotImplementedInAstjaxError NotImplementedError
# jax: NotImplementedError (NotImplementedError): np.reshape order=A is not implemented.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.arange(6.0).reshape((2, 3), order="A")  # error
