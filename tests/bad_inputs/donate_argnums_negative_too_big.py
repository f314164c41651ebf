# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): Jitted function has donate_argnums=(-5,), but only accepts 2 positional arguments.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, y):
    return x + y

astjax.jit(f, donate_argnums=-5)  # error
