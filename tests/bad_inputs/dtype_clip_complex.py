# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Clip received a complex value either through the input or the min/max keywords. Complex values have no ordering and cannot be clipped. Please convert to a real 
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.clip(jnp.array([1 + 2j, 3 - 1j]), 0, 1)  # error
