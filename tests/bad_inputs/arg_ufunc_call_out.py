# expect: NotImplementedInAstjaxError NotImplementedError
# jax: NotImplementedError (NotImplementedError): out argument of <jnp.ufunc 'add'>
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

x = jnp.arange(3.0)
jnp.add(x, x, out=x)  # error
