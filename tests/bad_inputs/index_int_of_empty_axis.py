# expect: AstjaxError IndexError
# jax: IndexError (IndexError): index is out of bounds for axis 0 with size 0
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax


jnp.ones(0)[0]  # error
