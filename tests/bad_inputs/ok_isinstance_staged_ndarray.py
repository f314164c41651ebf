# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    if isinstance(x, jnp.ndarray):
        return x * 2
    return x

assert float(astjax.jit(f)(1.5)) == 3.0
