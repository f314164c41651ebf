# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

assert float(jnp.min(jnp.zeros(0), initial=3.0)) == 3.0
