# expect: ok
# jax: TypeError (TracerIntegerConversionError): The __index__() method was called on traced array with shape int32[]
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(n):
    total = 0
    for i in range(n):
        total = total + i
    return total

assert int(astjax.jit(f)(5)) == 10
