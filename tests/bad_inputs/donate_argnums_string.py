# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): 'str' object cannot be interpreted as an integer
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, y):
    return x + y

astjax.jit(f, donate_argnums="x")  # error
