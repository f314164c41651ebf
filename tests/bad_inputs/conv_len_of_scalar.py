# expect: AstjaxError TypeError
# jax: TypeError (TypeError): len() of unsized object
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x + len(x.sum())  # error

astjax.jit(f)(jnp.ones(3))
