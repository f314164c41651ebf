# expect: AstjaxError ValueError
# jax: ValueError (ValueError): axis 2 is out of bounds for array of shape (3,)
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.cumsum(jnp.ones(3), axis=2)  # error
