# expect: ArgumentError ValueError
# jax: ValueError (ValueError): vmap was requested to map its argument along axis 0, which implies that its rank should be at least 1, but is only 0 (its shape is ())
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

astjax.jit(astjax.vmap(f))(jnp.float32(1.0))  # error
