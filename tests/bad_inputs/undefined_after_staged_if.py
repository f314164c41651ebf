# expect: UnboundLocalVariableError UnboundLocalError
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    if x > 0:  # error
        y = x * 2
    return y

astjax.jit(f)(1.0)
