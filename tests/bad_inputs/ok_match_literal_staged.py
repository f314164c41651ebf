# expect: ok
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    match x:
        case 1.0:
            return x
    return x * 2

assert float(astjax.jit(f)(1.0)) == 1.0
assert float(astjax.jit(f)(3.0)) == 6.0
