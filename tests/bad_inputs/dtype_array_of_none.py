# expect: AstjaxError ValueError
# jax: ValueError (ValueError): None is not a valid value for jnp.array
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.array(None)  # error
