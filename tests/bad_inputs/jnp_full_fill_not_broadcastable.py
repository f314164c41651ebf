# expect: ShapeValueError ValueError
# jax: ValueError (ValueError): Incompatible types for broadcasting: input type=float32[3] and requested type=float32[2]
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

jnp.full((2,), jnp.ones(3))  # error
