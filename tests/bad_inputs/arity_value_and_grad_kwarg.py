# expect: AstjaxError TypeError
# jax: TypeError (TypeError): f() got an unexpected keyword argument 'y'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

astjax.value_and_grad(f)(1.0, y=2.0)  # error
