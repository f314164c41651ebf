# expect: ShapeError TypeError
# jax: TypeError (TypeError): broadcast_in_dim broadcast_dimensions must have length equal to operand ndim; got broadcast_dimensions (0, 1) for operand ndim 1.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.broadcast_in_dim(jnp.ones(3), (3,), (0, 1))  # error
