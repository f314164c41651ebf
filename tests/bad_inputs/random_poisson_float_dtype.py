# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Invalid integer data type 'f'.
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

random.poisson(random.key(0), 3.0, (2,), dtype=jnp.float32)  # error
