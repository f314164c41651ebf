# expect: ok
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax



def f(x):
    while x < 10:
        import math as G
        x = x + G.e
    return x + G.pi


assert abs(float(astjax.jit(f)(jnp.float32(1.0))) - f(1.0)) < 1e-4
