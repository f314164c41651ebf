# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): axis 2 is out of bounds for array of dimension 1
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

jnp.fft.fft(jnp.ones(4), axis=2)  # error
