# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): differentiating with respect to argnums=2 requires at least 3 positional arguments to be passed by the caller, but got only 1 positional arguments.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

astjax.value_and_grad(f, argnums=2)(1.0)  # error
