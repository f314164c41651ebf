# expect: ConcretizationError TypeError
# jax: TypeError (TypeError): Shapes must be 1D sequences of concrete values of integer type, got (JitTracer(~int32[]), -1).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, n):
    return x.reshape(n, -1)  # error

astjax.jit(f)(np.ones(6), 2)
