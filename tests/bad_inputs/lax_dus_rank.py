# expect: ShapeError TypeError
# jax: TypeError (TypeError): dynamic_update_slice update must have the same rank as operand, got update shape (2,) for operand shape (3, 3).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

lax.dynamic_update_slice(jnp.ones((3, 3)), jnp.ones(2), (0, 0))  # error
