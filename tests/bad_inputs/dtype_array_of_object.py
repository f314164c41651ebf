# expect: AstjaxError TypeError
# jax: TypeError (TypeError): Value '<object object at 0x7f0110fb54c0>' with dtype object is not a valid JAX array type. Only arrays of numeric types are supported by JAX.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.array([object()])  # error
