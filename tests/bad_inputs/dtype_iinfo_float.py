# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Invalid integer data type 'f'.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.iinfo(jnp.float32)  # error
