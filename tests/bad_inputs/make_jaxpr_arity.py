# expect: AstjaxError TypeError
# jax: TypeError (TypeError): f() takes 1 positional argument but 2 were given
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x

astjax.make_jaxpr(f)(1.0, 2.0)  # error
