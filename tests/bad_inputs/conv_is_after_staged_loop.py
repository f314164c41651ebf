# expect: ConcretizationError TypeError
# jax: TypeError (TracerIntegerConversionError): The __index__() method was called on traced array with shape int32[]
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, n):
    z = x
    for i in range(n):
        x = x * 2
    return x * 2 if x is not z else x * 3  # error

astjax.jit(f)(jnp.ones(3), 2)
