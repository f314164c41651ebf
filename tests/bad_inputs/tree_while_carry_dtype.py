# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

assert float(lax.while_loop(lambda c: c < 3, lambda c: c + 1.5, 0)) == 3.0
