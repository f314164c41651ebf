# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return 1.0 if isinstance(x, float) else 2.0

assert astjax.jit(f)(1.0) == 2.0
