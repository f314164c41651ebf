# expect: ShapeError TypeError
# jax: TypeError (TypeError): Pred must be a scalar, got [ True False] of shape (2,).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.cond(jnp.array([True, False]), lambda x: x, lambda x: x, 1.0)  # error
