# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    s = astjax.eval_shape(lambda: x * 2)
    return jnp.zeros(s.shape) + x

assert astjax.jit(f)(jnp.ones(2)).tolist() == [1.0, 1.0]
