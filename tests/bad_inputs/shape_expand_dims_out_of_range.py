# expect: AstjaxError ValueError
# jax: ValueError (ValueError): axis 5 is out of bounds for array of dimension 3
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.expand_dims(jnp.ones((2, 3)), 5)  # error
