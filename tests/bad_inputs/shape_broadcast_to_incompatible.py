# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Incompatible types for broadcasting: input type=float32[2,3] and requested type=float32[2,4]
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.broadcast_to(jnp.ones((2, 3)), (2, 4))  # error
