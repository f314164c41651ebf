# expect: NotImplementedInAstjaxError NotImplementedError
# jax: NotImplementedError (NotImplementedError): Because JAX arrays are immutable, jnp.ufunc.at() cannot operate inplace like
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

x = jnp.zeros(3)
jnp.add.at(x, 0, 1.0)  # error
