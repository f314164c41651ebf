# expect: ArgumentError ValueError
# jax: ValueError (ValueError): zero-size array to reduction operation max which has no identity

import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

x = jnp.max(jnp.zeros(0))  # error
