# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    n = astjax.eval_shape(jnp.sin, x).shape[0]
    return jnp.sum(x) * n

assert astjax.grad(f)(jnp.ones(2)).tolist() == [2.0, 2.0]
