# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): 'float' object cannot be interpreted as an integer
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

jnp.triu(jnp.ones((3, 3)), k=1.5)  # error
