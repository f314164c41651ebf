# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Length of slice indices must match number of operand dimensions (1 vs (3, 3))
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

lax.dynamic_slice(jnp.ones((3, 3)), (0,), (2, 2))  # error
