# expect: ArgumentError ValueError
# jax: ValueError (ValueError): Jitted function has static_argnums=(2,), but only accepts 2 positional arguments.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, n):
    return x * n

astjax.jit(f, static_argnums=2)(jnp.ones(3), 2)  # error
