# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

i, j = jnp.unravel_index(7, (2, 3))
assert (int(i), int(j)) == (1, 2)
