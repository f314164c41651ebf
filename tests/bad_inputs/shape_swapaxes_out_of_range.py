# expect: AstjaxError IndexError
# jax: IndexError (IndexError): index 4 is out of bounds for axis 0 with size 2
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.swapaxes(jnp.ones((2, 3)), 0, 4)  # error
