# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax


assert jnp.repeat(jnp.arange(3.0) + 1, jnp.array([1, -1, 2])).tolist() == [2.0, 3.0]
assert jnp.repeat(jnp.arange(3.0) + 1, jnp.array([2])).tolist() == [1.0, 1.0, 2.0, 2.0, 3.0, 3.0]
