# expect: ok
# jax: ok
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

r = random.choice(random.key(0), 5.7, (3,))
assert r.shape == (3,) and r.dtype == jnp.int32 and bool(((r >= 0) & (r < 5)).all())
