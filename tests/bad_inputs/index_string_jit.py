# expect: AstjaxError TypeError
# jax: TypeError (TypeError): JAX does not support string indexing; got idx='a'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x['a']  # error

astjax.jit(f)(jnp.ones(3))
