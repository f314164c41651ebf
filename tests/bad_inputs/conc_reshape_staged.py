# expect: TracerIntegerConversionError TypeError
# jax: TypeError (TypeError): Shapes must be 1D sequences of concrete values of integer type, got (JitTracer(int32[]), -1).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x.reshape(x.sum().astype(int), -1)  # error

astjax.jit(f)(jnp.ones(3))
