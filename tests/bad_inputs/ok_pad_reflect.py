# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

assert jnp.pad(jnp.arange(3.0), 1, mode='reflect').tolist() == [1.0, 0.0, 1.0, 2.0, 1.0]
