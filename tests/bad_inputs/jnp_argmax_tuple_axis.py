# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): 'tuple' object cannot be interpreted as an integer
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

jnp.argmax(jnp.ones((2, 2)), axis=(0, 1))  # error
