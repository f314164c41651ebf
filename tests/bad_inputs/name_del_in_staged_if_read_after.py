# expect: UnboundLocalVariableError UnboundLocalError
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax



def f(x):
    G = x
    y = x
    if x.sum() > 0:  # error
        y = G * 2
        del G
    return y + G


astjax.jit(f)(jnp.ones(2))
