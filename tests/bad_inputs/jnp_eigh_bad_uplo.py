# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): UPLO must be one of None, 'L', or 'U', got X
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

jnp.linalg.eigh(jnp.eye(2), UPLO='X')  # error
