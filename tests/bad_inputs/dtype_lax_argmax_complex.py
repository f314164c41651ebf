# expect: AstjaxError TypeError
# jax: TypeError (TypeError): gt does not accept dtype complex64 at position 0. Accepted dtypes at position 0 are subtypes of integer, floating, bool.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.argmax(jnp.array([1 + 2j, 3 - 1j]), 0, jnp.int32)  # error
