# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

assert float(jnp.arange(3.0)[jnp.array(10)]) == 2.0
