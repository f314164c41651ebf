# expect: ShapeValueError ValueError
# jax: ValueError (ValueError): a should be 1-dimensional
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

jnp.searchsorted(jnp.ones((2, 2)), 0.5)  # error
