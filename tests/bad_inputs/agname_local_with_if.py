# expect: ok
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    ag__ = 1.0
    if x > 0:
        x = x * ag__
    return x

assert float(astjax.jit(f)(2.0)) == 2.0
