# expect: ok
# jax: ok
# xfail: issue 13 item 11: a static out-of-bounds index raises instead of clamping like JAX (numpy/indexing.py:122)
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

assert float(jnp.ones((2, 3))[0, 5]) == 1.0
