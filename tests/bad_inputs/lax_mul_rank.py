# expect: ShapeError TypeError
# jax: TypeError (TypeError): mul: arrays must have the same number of dimensions, got {1, 2}
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.mul(jnp.ones((2, 1)), jnp.ones(2))  # error
