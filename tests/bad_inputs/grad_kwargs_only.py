# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): differentiating with respect to argnums=0 requires at least 1 positional arguments to be passed by the caller, but got only 0 positional arguments.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

astjax.grad(f)(x=1.0)  # error
