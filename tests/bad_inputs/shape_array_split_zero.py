# expect: ArgumentZeroDivisionError ZeroDivisionError
# jax: ZeroDivisionError (ZeroDivisionError): integer division or modulo by zero
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.array_split(jnp.ones(4), 0)  # error
