# expect: AstjaxError TypeError
# jax: TypeError (TypeError): 'float' object is not iterable
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, y):
    return x * y

astjax.grad(f, argnums=0.5)(1.0, 2.0)  # error
