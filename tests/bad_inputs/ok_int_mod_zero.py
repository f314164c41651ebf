# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

assert jnp.array([1, 2, 3]) % 0 is not None
v = (jnp.array([1, 2, 3]) % 0).tolist()
