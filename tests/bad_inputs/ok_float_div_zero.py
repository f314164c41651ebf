# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

assert np.isinf(float(jnp.float32(1.0) / 0.0))
