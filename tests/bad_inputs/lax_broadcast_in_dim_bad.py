# expect: ShapeError TypeError
# jax: TypeError (TypeError): broadcast_in_dim operand dimension sizes must either be 1, or be equal to their corresponding dimensions in the target broadcast shape; got operand of shape (3,
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.broadcast_in_dim(jnp.ones(3), (2, 4), (1,))  # error
