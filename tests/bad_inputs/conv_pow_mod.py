# expect: AstjaxError TypeError
# jax: TypeError (TypeError): _operator_pow() takes 2 positional arguments but 3 were given
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return pow(x.astype(int), 2, 5)  # error

astjax.jit(f)(jnp.ones(3))
