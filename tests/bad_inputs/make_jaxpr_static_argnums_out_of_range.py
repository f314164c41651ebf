# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): Jitted function has static_argnums=(3,), but only accepts 1 positional arguments.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

astjax.make_jaxpr(f, static_argnums=3)(1.0)  # error
