# expect: ShapeValueError ValueError
# jax: ValueError (ValueError): Incompatible shapes for broadcasting: shapes=[(2,), (3,), ()]
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

random.truncated_normal(random.key(0), jnp.zeros(3), 1.0, shape=(2,))  # error
