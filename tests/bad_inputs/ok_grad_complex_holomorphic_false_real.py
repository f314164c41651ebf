# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.sum(x ** 2)

assert np.allclose(astjax.grad(f)(jnp.ones(2)), 2.0)
