# expect: AstjaxError ZeroDivisionError
# jax: ZeroDivisionError (ZeroDivisionError): division by zero
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.arange(0, 10, 0)  # error
