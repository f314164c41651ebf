# expect: AstjaxError ValueError
# jax: ValueError (ValueError): vmap got inconsistent sizes for array axes to be mapped:
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(d):
    return d['a'] + d['b']

astjax.vmap(f)({'a': jnp.ones(3), 'b': jnp.ones(4)})  # error
