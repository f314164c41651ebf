# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

x = jnp.array("12", dtype=jnp.int32)
assert x.dtype == jnp.int32 and int(x) == 12
