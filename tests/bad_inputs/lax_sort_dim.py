# expect: AstjaxError ValueError
# jax: ValueError (ValueError): axis 1 is out of bounds for array of dimension 1
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.sort(jnp.ones(3), dimension=1)  # error
