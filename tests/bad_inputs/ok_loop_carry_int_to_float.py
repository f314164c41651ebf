# expect: ok
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax


def f(x, n):
    i = 0
    while i < n:
        i = i + 0.5      # the counter becomes a float, as in Python
    return i

assert float(astjax.jit(f)(1.0, 3)) == f(1.0, 3) == 3.0
