# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.stack([x, x])

assert astjax.vmap(f, out_axes=1)(jnp.ones(3)).shape == (2, 3)
