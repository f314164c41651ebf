# expect: AstjaxError TypeError
# jax: TypeError (TypeError): Value 'a' with dtype <U1 is not a valid JAX array type. Only arrays of numeric types are supported by JAX.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.array(['a', 'b'])  # error
