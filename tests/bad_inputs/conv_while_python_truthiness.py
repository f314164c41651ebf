# expect: ok
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape float32[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x if x.sum() and x.max() else -x

assert astjax.jit(f)(jnp.ones(3)).tolist() == [1.0, 1.0, 1.0]
