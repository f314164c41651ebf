# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

assert int(jnp.arange(10)[11]) == 9
