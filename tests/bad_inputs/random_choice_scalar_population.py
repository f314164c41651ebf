# expect: ok
# jax: ok
import astjax.numpy as jnp
from astjax import random

r = random.choice(random.key(0), jnp.array(5.0), (2,))  # error
assert r.shape == (2,) and r.dtype == jnp.int32 and bool(((r >= 0) & (r < 5)).all())
