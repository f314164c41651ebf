# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Incompatible types for broadcasting: input type=float32[3] and requested type=float32[2]
# xfail: numpy/ufuncs.py:34, broadcast_shapes, raises ShapeError (a TypeError); JAX raises ValueError for shapes that do not broadcast
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.broadcast_to(jnp.ones(3), (2,))  # error
