# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): 'float' object cannot be interpreted as an integer
# xfail: astjax/numpy: jnp.round(x, decimals=1.5) runs (rounds at 1.5 decimals: 1.0119), JAX's TypeError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

jnp.round(jnp.ones(3), decimals=1.5)  # error
