# expect: warning SideEffectWarning
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

seen = []

def f(x):
    seen.append(x)  # error
    return x * 2

astjax.jit(f)(1.0)
