# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

assert np.isnan(float(jnp.sqrt(-1.0)))
