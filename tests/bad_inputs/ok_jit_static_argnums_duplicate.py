# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, y):
    return x + y

r = astjax.jit(f, static_argnums=(1, 1))(jnp.ones(3), 2)
assert r.tolist() == [3.0, 3.0, 3.0]
