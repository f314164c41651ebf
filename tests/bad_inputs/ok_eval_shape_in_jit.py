# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    s = astjax.eval_shape(lambda y: y * 2, x)
    return x + s.shape[0]

assert astjax.jit(f)(jnp.ones(3)).tolist() == [4.0, 4.0, 4.0]
