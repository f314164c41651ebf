# expect: TracerBoolConversionError TypeError
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, y):
    if any(jnp.sum(a) > 0 for a in [x, y]):  # error
        return x
    return y

astjax.jit(f)(jnp.ones(3), jnp.ones(3))
