# expect: ShapeError TypeError
# jax: TypeError (TypeError): cannot reshape array of shape (6,) (size 6) into shape (4,) (size 4)
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax


jnp.reshape(jnp.ones(6), (4,))  # error
