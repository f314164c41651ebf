# expect: ok
# jax: ok
# xfail: issue 13 item 11: a static out-of-bounds index raises instead of clamping like JAX
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

assert int(jnp.arange(10)[11]) == 9
