# expect: ShapeError TypeError
# jax: TypeError (TypeError): can only specify one unknown axis size with a `-1` value, got (-1, -1)
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.ones(6).reshape(-1, -1)  # error
