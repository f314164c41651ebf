# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): differentiating with respect to argnums=3 requires at least 4 positional arguments to be passed by the caller, but got only 1 positional arguments.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x

astjax.grad(f, argnums=3)(1.0)  # error
