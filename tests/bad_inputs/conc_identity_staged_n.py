# expect: ConcretizationError TypeError
# jax: TypeError (TypeError): Shapes must be 1D sequences of concrete values of integer type, got (JitTracer(~int32[]),). argument of 'N' jnp.eye().
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.identity(x)  # error

astjax.jit(f)(3)
