# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): 'float' object cannot be interpreted as an integer
# xfail: astjax/numpy: jnp.triu(x, k=1.5) runs as k=1, JAX's TypeError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

jnp.triu(jnp.ones((3, 3)), k=1.5)  # error
