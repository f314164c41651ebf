# expect: ShapeError TypeError
# jax: TypeError (TypeError): broadcast_in_dim shape must have every element be nonnegative, got (-1, 3).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

astjax.vmap(lambda x: x, in_axes=None, axis_size=-1)(jnp.ones(3))  # error
