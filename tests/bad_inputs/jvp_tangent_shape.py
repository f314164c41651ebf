# expect: AstjaxError ValueError
# jax: ValueError (ValueError): jvp called with different primal and tangent shapes;Got primal shape (3,) and tangent shape as (2,)
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

astjax.jvp(f, (jnp.ones(3),), (jnp.ones(2),))  # error
