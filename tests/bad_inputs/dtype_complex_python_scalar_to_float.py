# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): float() argument must be a string or a real number, not 'complex'
import numpy as np
import astjax
import astjax.numpy as jnp

x = jnp.array(1 + 2j, dtype=jnp.float32)  # error
