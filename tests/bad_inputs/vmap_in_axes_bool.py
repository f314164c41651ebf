# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): vmap in_axes must be an int, None, or a tuple of entries corresponding to the positional arguments passed to the function, but got True.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

astjax.vmap(lambda x: x, in_axes=True)(jnp.ones(3))  # error
