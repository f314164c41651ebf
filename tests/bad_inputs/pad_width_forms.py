# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax


assert jnp.pad(jnp.ones((2, 2)), ((1, 0), (0, 2))).shape == (3, 4)
assert jnp.pad(jnp.ones((2, 2)), (1, 2)).shape == (5, 5)
assert jnp.pad(jnp.ones((2, 2)), [3]).shape == (8, 8)
assert jnp.pad(jnp.ones((2, 2)), ((1, 2),)).shape == (5, 5)
