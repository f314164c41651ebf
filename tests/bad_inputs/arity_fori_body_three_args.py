# expect: AstjaxError TypeError
# jax: TypeError (TypeError): body() missing 1 required positional argument: 'extra'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def body(i, c, extra):
    return c + 1.0

lax.fori_loop(0, 3, body, 0.0)  # error
