# expect: AstjaxError ValueError
# jax: ValueError (ValueError): axis 4 is out of bounds for array of dimension 2
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.expand_dims(jnp.ones(3), (4,))  # error
