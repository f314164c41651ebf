# expect: NotImplementedInAstjaxError NotImplementedError
# jax: NotImplementedError (NotImplementedError): Unimplemented padding mode 'mirror' for np.pad.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.pad(x, 1, mode='mirror')  # error

astjax.jit(f)(jnp.ones(3))
