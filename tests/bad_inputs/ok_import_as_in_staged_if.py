# expect: ok
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax



def f(x):
    if x.sum() > 0:
        from math import pi as G
        y = x * 2
    else:
        from math import e as G
        y = x * 3
    return y + G


assert abs(float(astjax.jit(f)(jnp.float32(1.0))) - (2 + np.pi)) < 1e-5
assert abs(float(astjax.jit(f)(jnp.float32(-1.0))) - (-3 + np.e)) < 1e-5
