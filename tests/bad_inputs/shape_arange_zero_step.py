# expect: AstjaxError ZeroDivisionError
# jax: ZeroDivisionError (ZeroDivisionError): division by zero
# xfail: numpy/creation.py:170: jnp.arange(0, 10, 0) divides by zero inside astjax (raw ZeroDivisionError, as JAX, but without a location)
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.arange(0, 10, 0)  # error
