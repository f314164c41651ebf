# expect: TracerIntegerConversionError TypeError
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return lax.top_k(x, x.sum().astype(int))[0]  # error

astjax.jit(f)(jnp.ones(3))
