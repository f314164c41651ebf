# expect: ShapeError TypeError
# jax: TypeError (TypeError): slice slice_sizes must be less than or equal to operand shape, got slice_sizes (7,) for operand shape (5,).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.dynamic_slice(jnp.ones(5), (0,), (7,))  # error
