# expect: ok
# jax: TypeError (TracerIntegerConversionError): The __index__() method was called on traced array with shape int32[]
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax


def f(x, n):
    for i in range(n):   # a staged trip count: a while loop
        from math import tau as T
        x = x + T * i
    return x - T


assert abs(float(astjax.jit(f)(jnp.float32(1.0), 3)) - f(1.0, 3)) < 1e-4
