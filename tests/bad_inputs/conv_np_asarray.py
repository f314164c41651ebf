# expect: TracerArrayConversionError TypeError
# jax: TypeError (TracerArrayConversionError): The numpy.ndarray conversion method __array__() was called on traced array with shape float32[3]
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x + np.asarray(x).sum()  # error

astjax.jit(f)(jnp.ones(3))
