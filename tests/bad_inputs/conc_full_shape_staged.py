# expect: TracerIntegerConversionError TypeError
# jax: TypeError (TypeError): Shapes must be 1D sequences of concrete values of integer type, got (JitTracer(int32[]),).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.full(x.sum().astype(int), 1.0)  # error

astjax.jit(f)(jnp.ones(3))
