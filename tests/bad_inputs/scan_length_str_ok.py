# expect: ok
# jax: ok
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

c, ys = lax.scan(lambda c, x: (c + 1.0, c), 0.0, None, length="2")
assert float(c) == 2.0 and ys.shape == (2,)
