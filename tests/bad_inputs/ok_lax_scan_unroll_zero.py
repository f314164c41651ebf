# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def body(c, x):
    return c + x, c

c, ys = lax.scan(body, 0.0, jnp.arange(3.0), unroll=0)
assert float(c) == 3.0 and np.asarray(ys).tolist() == [0.0, 0.0, 1.0]
