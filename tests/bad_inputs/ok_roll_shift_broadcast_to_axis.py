# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

y = jnp.roll(jnp.arange(6.0).reshape(2, 3), (1, 2), axis=(0,))
assert np.asarray(y).tolist() == np.roll(np.arange(6.0).reshape(2, 3), (1, 2), axis=(0,)).tolist()
