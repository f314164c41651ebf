# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): Number of samples, -1, must be non-negative.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.histogram(jnp.arange(4.0), bins=-2)  # error
