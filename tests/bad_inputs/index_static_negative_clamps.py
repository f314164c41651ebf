# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax


assert jnp.arange(10.0)[-11].tolist() == 0.0 and jnp.arange(10.0)[-100].tolist() == 0.0
