# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(xs):
    return lax.scan(lambda c, v: (c + v, c), 0.0, xs)

c, ys = astjax.jit(f)(np.zeros(0, np.float32))
assert float(c) == 0.0 and ys.shape == (0,)
