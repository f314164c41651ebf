# expect: AstjaxError TypeError
# jax: TypeError (TypeError): JAX encountered invalid PRNG key data: expected key_data.dtype = uint32; got dtype=float32
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

random.key_data(jnp.ones(2))  # error
