# expect: EscapedTracerError TypeError
# jax: TypeError (UnexpectedTracerError): Encountered an unexpected tracer. A function transformed by JAX had a side effect, allowing for a reference to an intermediate value with type float32[] wrapped
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

import contextlib

G = 0


@contextlib.contextmanager
def cm(v):
    yield v


def f(x):
    global G
    with cm(x * 2) as G:  # error
        pass
    return x


astjax.jit(f)(1.0)
G + 1
