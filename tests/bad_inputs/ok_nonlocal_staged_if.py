# expect: ok
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    t = x
    def g():
        nonlocal t
        if t > 0:
            t = t * 2
    g()
    return t

r = astjax.jit(f)(1.0)
assert float(r) == 2.0
