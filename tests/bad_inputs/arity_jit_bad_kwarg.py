# expect: AstjaxError TypeError
# jax: TypeError (TypeError): f() got an unexpected keyword argument 'z'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

astjax.jit(f)(1.0, z=2.0)  # error
