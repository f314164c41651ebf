# expect: ok
# jax: ok
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
    with cm(5) as G:  # only Python values go in: JAX's behaviour, silent
        pass
    return x + G


assert float(astjax.jit(f)(1.0)) == 6.0
assert G == 5
