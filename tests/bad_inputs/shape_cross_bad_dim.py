# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Dimension must be either 2 or 3 for cross product
# xfail: numpy/arrayops.py:486: jnp.cross of a bad dimension raises ShapeError (a TypeError); JAX raises ValueError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.cross(jnp.ones(4), jnp.ones(4))  # error
