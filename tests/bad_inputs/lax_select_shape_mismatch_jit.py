# expect: ShapeError TypeError
# jax: TypeError (TypeError): select cases must have the same shapes, got [(4,), (3,)].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return lax.select(x > 0, x, jnp.ones(4))  # error

astjax.jit(f)(jnp.ones(3))
