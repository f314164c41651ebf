# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): exponent must be an integer, got 1.5
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

jnp.linalg.matrix_power(jnp.eye(2), 1.5)  # error
