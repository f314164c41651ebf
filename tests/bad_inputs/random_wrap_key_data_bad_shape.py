# expect: AstjaxError TypeError
# jax: TypeError (TypeError): JAX encountered invalid PRNG key data: expected key_data.shape to end with (2,); got shape=(3,) for impl=PRNGImpl(key_shape=(2,), seed=<function threefry_seed a
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

random.wrap_key_data(jnp.zeros(3, jnp.uint32))  # error
