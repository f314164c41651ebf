# expect: AxisError ValueError
# jax: ValueError (ValueError): axis 7 is out of bounds for array of dimension 4
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.argpartition(jnp.arange(4.0), 7)  # error
