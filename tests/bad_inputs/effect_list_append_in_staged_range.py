# expect: LoopCarryError TypeError
# jax: TypeError (TracerIntegerConversionError): The __index__() method was called on traced array with shape int32[]
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, n):
    out = []
    for i in range(n):  # error
        out.append(x * i)
    return jnp.stack(out)

astjax.jit(f)(jnp.ones(3), 2)
