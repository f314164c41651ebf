# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): Expected an input array of unsigned byte data type
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

jnp.unpackbits(jnp.ones(3))  # error
