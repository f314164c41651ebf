# expect: AstjaxError ValueError
# jax: ValueError (ValueError): duplicate value in 'axis': (0, 0)
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.sum(jnp.ones((2, 3)), axis=(0, 0))  # error
