# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): normal accepts a single key, but was given a key array of shape (2,) != (). Use jax.vmap for batching.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

keys = random.split(random.key(0))
random.normal(keys, (3,))  # error
