# expect: AstjaxError ZeroDivisionError
# jax: ZeroDivisionError (ZeroDivisionError): division by zero
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

jnp.arange(0, 10, 0)  # error
