# expect: UnboundLocalVariableError UnboundLocalError
# jax: TypeError (TracerIntegerConversionError): The __index__() method was called on traced array with shape int32[]
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, n):
    for i in range(n):
        t = x * i
        del t
    return t  # error

astjax.jit(f)(jnp.ones(3), 2)
