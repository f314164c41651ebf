# expect: ConcretizationError TypeError
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

seen = []


def f(x):
    if x > 0:
        seen.append(x)  # error
    return x


astjax.jit(f)(1.0)
