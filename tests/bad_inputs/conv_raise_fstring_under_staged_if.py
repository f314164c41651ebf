# expect: ConcretizationError TypeError
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    if jnp.sum(x) > 10:
        raise ValueError(f"too big: {x}")  # error
    return x

astjax.jit(f)(jnp.ones(3))
