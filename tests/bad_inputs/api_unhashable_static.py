# expect: ArgumentError ValueError
# xfail: JAX raises ValueError (non-hashable static argument); astjax's class to be aligned
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, opts):
    return x

astjax.jit(f, static_argnums=1)(1.0, {"a": 1})  # error
