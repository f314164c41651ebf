# expect: AstjaxError TypeError
# jax: TypeError (TypeError): JAX arrays are immutable and do not support in-place item assignment. Instead of x[idx] = y, use x = x.at[idx].set(y) or another .at[] method: https://docs.jax.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    x[0] = 1.0; return x  # error

astjax.jit(f)(jnp.ones(3))
