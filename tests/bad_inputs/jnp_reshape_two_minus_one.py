# expect: ShapeError TypeError
# jax: TypeError (TypeError): can only specify one unknown axis size with a `-1` value, got (-1, -1)
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

jnp.reshape(jnp.ones(6), (-1, -1))  # error
