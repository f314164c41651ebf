# expect: AstjaxError TypeError
# jax: TypeError (TypeError): f() got multiple values for argument 'x'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

astjax.jit(f)(1.0, x=2.0)  # error
