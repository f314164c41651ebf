# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

assert jnp.ones(3)[None].shape == (1, 3)
