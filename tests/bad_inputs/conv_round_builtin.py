# expect: ok
# jax: ok
# xfail: TODO rejected a valid program: TypeError: type Tracer doesn't define __round__ method
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x + round(x.sum())  # error

astjax.jit(f)(jnp.ones(3))
