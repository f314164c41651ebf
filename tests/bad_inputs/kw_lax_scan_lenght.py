# expect: ArityError TypeError
# jax: TypeError (TypeError): scan() got an unexpected keyword argument 'lenght'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return lax.scan(lambda c, _: (c + 1.0, c), 0.0, None, lenght=3)[1]  # error

astjax.jit(f)(jnp.ones(3))
