# expect: ConcretizationError TypeError
# jax: TypeError (TracerIntegerConversionError): The __index__() method was called on traced array with shape int32[]
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(n, x):
    return sum([x * i for i in range(n)])  # error

astjax.jit(f)(3, 1.0)
