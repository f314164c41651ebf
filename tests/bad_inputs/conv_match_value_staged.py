# expect: TracerBoolConversionError TypeError
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    match x:
        case 1.0:  # error
            return x
    return x * 2

astjax.jit(f)(1.0)
