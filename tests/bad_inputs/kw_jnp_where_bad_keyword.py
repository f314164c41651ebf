# expect: ArityError TypeError
# jax: TypeError (TypeError): where() got some positional-only arguments passed as keyword arguments: 'y'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.where(x > 0, x, y=0.0)  # error

astjax.jit(f)(jnp.ones(3))
