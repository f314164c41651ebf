# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): vmap was requested to map its argument along axis 1, which implies that its rank should be at least 2, but is only 1 (its shape is (3,))
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, y):
    return x + y

astjax.vmap(f, in_axes=[0, 1])(jnp.ones(3), jnp.ones(3))  # error
