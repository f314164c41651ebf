# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

assert float(lax.fori_loop(0, 3, lambda i, c: c + 0.5, 0)) == 1.5
