# expect: ok
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, s):
    if 0.0 < s < 1.0:
        return x
    return x * 2

r = astjax.jit(f)(1.0, 0.5)
assert float(r) == 1.0
assert float(astjax.jit(f)(1.0, 1.5)) == 2.0
