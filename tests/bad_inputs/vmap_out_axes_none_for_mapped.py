# expect: AstjaxError ValueError
# jax: ValueError (ValueError): at vmap out_axes, got axis spec None but output was batched on axis 0
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

astjax.vmap(f, out_axes=None)(jnp.ones(3))  # error
