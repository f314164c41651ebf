# expect: ShapeError TypeError
# jax: TypeError (TypeError): dynamic_update_slice update shape must be smaller than operand shape, got update shape (5,) for operand shape (3,).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.dynamic_update_slice(jnp.ones(3), jnp.ones(5), (0,))  # error
