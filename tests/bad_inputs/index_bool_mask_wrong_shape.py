# expect: AstjaxError IndexError
# jax: IndexError (IndexError): boolean index did not match shape of indexed array in index 0: got (2,), expected [3]
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.ones(3)[jnp.array([True, False])]  # error
