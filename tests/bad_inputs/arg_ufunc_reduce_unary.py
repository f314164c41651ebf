# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): reduce only supported for binary ufuncs
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.negative.reduce(jnp.arange(3.0))  # error
