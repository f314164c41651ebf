# expect: ok
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    k = 0
    while True:
        k += 1
        x = x * 0.5
        if jnp.sum(x) < 0.1:
            break
    return x, k

y, k = astjax.jit(f)(jnp.ones(3))
assert int(k) == 5 and float(y[0]) == 0.03125
