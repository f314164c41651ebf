# expect: ShapeValueError ValueError
# jax: ValueError (ValueError): Incompatible shapes for broadcasting: shapes=[(3,), (np.int64(2),)]
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

random.categorical(random.key(0), jnp.zeros((2, 5)), shape=(3,))  # error
