# expect: ok
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    if x > 0:
        return x * 2
    return -x

assert float(astjax.jit(f)(-3.0)) == 3.0 and float(astjax.jit(f)(2.0)) == 4.0
