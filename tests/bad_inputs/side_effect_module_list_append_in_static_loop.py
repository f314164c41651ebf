# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

seen = []


def f(x):
    for i in range(3):
        seen.append(i)  # only Python values go in: JAX's behaviour, silent
    return x


astjax.jit(f)(1.0)
assert seen == [0, 1, 2], seen
