# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    if x.shape[0] > 2:
        return x.sum()
    return x.prod()

assert float(astjax.jit(f)(np.arange(1.0, 5.0))) == 10.0
