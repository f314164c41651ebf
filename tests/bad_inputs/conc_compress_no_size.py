# expect: ConcretizationError TypeError
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.compress(x > 0, x)  # error

astjax.jit(f)(jnp.ones(3))
