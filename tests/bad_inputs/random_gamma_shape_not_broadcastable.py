# expect: ShapeValueError ValueError
# jax: ValueError (ValueError): Incompatible shapes for broadcasting: shapes=[(2,), (3,)]
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

random.gamma(random.key(0), jnp.ones(3), shape=(2,))  # error
