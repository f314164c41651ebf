# expect: EscapedTracerError TypeError
# jax: TypeError (UnexpectedTracerError): Encountered an unexpected tracer. A function transformed by JAX had a side effect, allowing for a reference to an intermediate value with type float32[] wrapped
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

G = 0


def f(x):
    global G
    y = (G := x * 3) + 1  # error
    return y


astjax.jit(f)(1.0)
G + 1
