# expect: AxisError ValueError
# jax: ValueError (ValueError): axis 2 is out of bounds for array of dimension 2
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.repeat(jnp.ones((2, 3)), 2, axis=2)  # error
