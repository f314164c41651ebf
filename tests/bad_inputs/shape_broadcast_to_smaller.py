# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Incompatible types for broadcasting: input type=float32[3] and requested type=float32[2]
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.broadcast_to(jnp.ones(3), (2,))  # error
