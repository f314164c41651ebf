# expect: ConcretizationError TypeError
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

G = 0


def f(x):
    global G
    if x > 0:
        del G  # error
    return x


astjax.jit(f)(1.0)
