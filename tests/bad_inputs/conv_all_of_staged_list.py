# expect: TracerBoolConversionError TypeError
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x if all([x[0] > 0, x[1] > 0]) else -x  # error

astjax.jit(f)(jnp.ones(3))
