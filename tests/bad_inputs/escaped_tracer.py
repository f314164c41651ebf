# expect: EscapedTracerError TypeError
# jax: TypeError (UnexpectedTracerError): Encountered an unexpected tracer. A function transformed by JAX had a side effect, allowing for a reference to an intermediate value with type float32[] wrapped
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

leak = []

def f(x):
    leak.append(x)
    return x * 2

astjax.jit(f)(1.0)
y = leak[0] + 1  # error
