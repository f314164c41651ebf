# expect: AstjaxError TypeError
# jax: TypeError (TypeError): f() missing 1 required keyword-only argument: 'y'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, *, y):
    return x * y

astjax.jit(f)(1.0)  # error
