# expect: AstjaxError OverflowError
# jax: OverflowError (OverflowError): Python int 1099511627776 too large to convert to int32
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.array(2**40)  # error
