# expect: ConcretizationError TypeError
# jax: IndexError (IndexError): Slice entries must be static integers. Got slice(None, JitTracer(~int32[]), None) at position 0
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, k):
    return x[:k]  # error

astjax.jit(f)(np.arange(5.0), 2)
