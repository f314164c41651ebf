# expect: AstjaxError TypeError
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    if x.sum() > 0:  # error
        y = (x, x)
    else:
        y = x
    return y

astjax.jit(f)(jnp.ones(2))
