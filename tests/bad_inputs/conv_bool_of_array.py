# expect: TracerBoolConversionError TypeError
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape float32[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x if bool(x.sum()) else -x  # error

astjax.jit(f)(jnp.ones(3))
