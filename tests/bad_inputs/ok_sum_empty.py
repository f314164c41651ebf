# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

assert float(jnp.sum(jnp.zeros((0, 3)))) == 0.0
