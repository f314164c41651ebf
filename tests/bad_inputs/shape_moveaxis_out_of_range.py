# expect: AstjaxError ValueError
# jax: ValueError (ValueError): axis 5 is out of bounds for array of dimension 2
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.moveaxis(jnp.ones((2, 3)), 0, 5)  # error
