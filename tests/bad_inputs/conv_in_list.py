# expect: TracerBoolConversionError TypeError
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x + (1.0 if x.sum() in [1.0, 2.0] else 0.0)  # error

astjax.jit(f)(jnp.ones(3))
