# expect: AstjaxError IndexError
# jax: IndexError (IndexError): index 2 is out of bounds for axis 0 with size 1
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

from astjax import random
random.categorical(random.PRNGKey(0), jnp.ones(3), axis=2)  # error
