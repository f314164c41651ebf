# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): 'int' object is not iterable
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, y):
    return x + y

astjax.jit(f, static_argnames=1)  # error
