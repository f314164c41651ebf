# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): dtype argument to `uniform` must be a float dtype, got int32
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

random.uniform(random.key(0), (2,), dtype=jnp.int32)  # error
