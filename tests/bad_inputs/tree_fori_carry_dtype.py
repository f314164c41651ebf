# expect: ok
# jax: ok
# xfail: primitives/scan.py:589: a weakly-typed carry (Python int 0) that becomes float is rejected; JAX promotes the weak carry and runs
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

assert float(lax.fori_loop(0, 3, lambda i, c: c + 0.5, 0)) == 1.5
