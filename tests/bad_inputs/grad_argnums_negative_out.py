# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Positional argument indices, e.g. for `static_argnums`, must have value greater than or equal to -len(args) and less than len(args), but got value -3 for len(ar
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, y):
    return x * y

astjax.grad(f, argnums=-3)(1.0, 2.0)  # error
