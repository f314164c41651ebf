# expect: ShapeError TypeError
# jax: TypeError (TypeError): rev dimensions must all be less than operand ndim, got dimensions (1,) for operand ndim 1.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.rev(jnp.ones(3), (1,))  # error
