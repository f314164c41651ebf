# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): setting an array element with a sequence. The requested array has an inhomogeneous shape after 1 dimensions. The detected shape was (2,) + inhomogeneous part.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

jnp.array([[1, 2], [3]])  # error
