# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): x argument to bincount must have an integer type; got float32
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

jnp.bincount(jnp.ones(3), length=4)  # error
