# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, y):
    return x * y

g = astjax.grad(f, argnums=[0, 1])(1.0, 2.0)
assert [float(v) for v in g] == [2.0, 1.0]
