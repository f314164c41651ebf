# expect: AstjaxError IndexError
# jax: IndexError (IndexError): Too many indices: array is 1-dimensional, but 2 were indexed
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.ones(3)[0, 0]  # error
