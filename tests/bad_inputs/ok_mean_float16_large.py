# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

x = jnp.full(4, 6e4, jnp.float16)
assert float(jnp.mean(x)) == 6e4
