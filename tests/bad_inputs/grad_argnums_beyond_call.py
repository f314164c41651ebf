# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): differentiating with respect to argnums=1 requires at least 2 positional arguments to be passed by the caller, but got only 1 positional arguments.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, y=2.0):
    return x * y

astjax.grad(f, argnums=1)(1.0)  # error
