# expect: ConcretizationError TypeError
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    z = x
    if jnp.sum(x) > 5:
        x = x * 2
    return x * 2 if z is x else x * 3  # error

astjax.jit(f)(jnp.ones(3))
