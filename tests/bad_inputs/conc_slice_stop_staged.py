# expect: AstjaxError IndexError
# jax: IndexError (IndexError): Slice entries must be static integers. Got slice(None, JitTracer(int32[]), None) at position 0
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x[:x.sum().astype(int)]  # error

astjax.jit(f)(jnp.ones(3))
