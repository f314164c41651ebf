# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

assert float(jnp.ones((2, 3))[0, 5]) == 1.0
