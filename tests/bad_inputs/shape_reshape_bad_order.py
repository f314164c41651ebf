# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): Unexpected value for 'order' argument: K.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.reshape(jnp.ones(6), (2, 3), order="K")  # error
