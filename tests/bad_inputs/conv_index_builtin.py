# expect: TracerIntegerConversionError TypeError
# jax: TypeError (TracerIntegerConversionError): The __index__() method was called on traced array with shape int32[]
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return [1.0, 2.0, 3.0][x.sum().astype(int)] + x  # error

astjax.jit(f)(jnp.ones(3))
