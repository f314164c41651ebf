# expect: AstjaxError ValueError
# jax: ValueError (ValueError): duplicate value in 'axis': (1, -1)
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.mean(jnp.ones((2, 3)), axis=(1, -1))  # error
