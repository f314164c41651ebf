# expect: ArgumentError ValueError
# jax: ValueError (ValueError): Non-hashable static arguments are not supported. An error occurred while trying to hash an object of type <class 'numpy.ndarray'>, [0 1]. The error was:
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, idx):
    return x[idx]

astjax.jit(f, static_argnums=1)(jnp.ones(3), np.array([0, 1]))  # error
