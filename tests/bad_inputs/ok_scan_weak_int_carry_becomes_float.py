# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def body(c, x):
    return c * 0.5, x

c, ys = lax.scan(body, 1, jnp.arange(3.0))
assert c.dtype == jnp.float32 and float(c) == 0.125
