# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.sum(x)

assert float(astjax.jit(f)(np.zeros(0, np.float32))) == 0.0
