# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(*args):
    return args[0]

r = astjax.jit(f, static_argnums=3)(1.0, 2.0)
assert float(r) == 1.0
