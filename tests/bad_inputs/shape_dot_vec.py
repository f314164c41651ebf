# expect: ShapeError TypeError
# jax: TypeError (TypeError): dot_general requires contracting dimensions to have the same shape, got (3,) and (4,).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.dot(jnp.ones(3), jnp.ones(4))  # error
