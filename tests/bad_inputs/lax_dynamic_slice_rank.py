# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Length of slice indices must match number of operand dimensions (1 vs (5, 5))
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.dynamic_slice(jnp.ones((5, 5)), (0,), (2,))  # error
