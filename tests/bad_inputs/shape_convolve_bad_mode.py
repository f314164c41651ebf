# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): mode must be one of ['full', 'same', 'valid']
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.convolve(jnp.ones(3), jnp.ones(2), mode="middle")  # error
