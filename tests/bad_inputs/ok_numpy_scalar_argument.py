# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

assert float(astjax.jit(f)(np.float64(1.5))) == 3.0
