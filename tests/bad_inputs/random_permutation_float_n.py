# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): x must be an integer or at least 1-dimensional
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

random.permutation(random.key(0), 3.5)  # error
