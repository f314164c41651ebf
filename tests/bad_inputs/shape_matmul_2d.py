# expect: ShapeError TypeError
# jax: TypeError (TypeError): dot_general requires contracting dimensions to have the same shape, got (3,) and (2,).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.matmul(jnp.ones((2, 3)), jnp.ones((2, 3)))  # error
