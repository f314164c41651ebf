# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

assert jnp.arange(3.0)[1:10].shape == (2,)
