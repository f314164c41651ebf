# expect: ShapeError TypeError
# jax: TypeError (TypeError): reduce_window got the wrong number of window_dimensions for operand: got operand shape (4, 4) with window_dimensions (2,).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

lax.reduce_window(jnp.ones((4, 4)), 0.0, lax.add, (2,), (1,), 'VALID')  # error
