# expect: AstjaxError ValueError
# jax: ValueError (ValueError): dtype argument to `bits` must be an unsigned int dtype, got float32
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

random.bits(random.key(0), (2,), dtype=jnp.float32)  # error
