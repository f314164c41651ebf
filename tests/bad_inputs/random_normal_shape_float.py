# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): Shapes must be 1D sequences of concrete values of integer type, got (2.0,).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

random.normal(random.key(0), (2.0,))  # error
