# expect: TracerIntegerConversionError TypeError
# jax: TypeError (TypeError): Shapes must be 1D sequences of concrete values of integer type, got (2, JitTracer(int32[])).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.ones((2, x.sum().astype(int)))  # error

astjax.jit(f)(jnp.ones(3))
