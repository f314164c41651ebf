# expect: ConcretizationError TypeError
# jax: TypeError (TracerIntegerConversionError): The __index__() method was called on traced array with shape int32[]
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

G = 0


def f(x, n):
    global G
    for i in range(n):  # error
        import math as G
        x = x + 1
    return x


astjax.jit(f)(1.0, 3)
