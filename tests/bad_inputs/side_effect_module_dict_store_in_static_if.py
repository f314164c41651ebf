# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

table = {}


def f(x):
    if x.ndim == 0:
        table["k"] = 1  # only Python values go in: JAX's behaviour, silent
    return x


astjax.jit(f)(1.0)
assert table == {"k": 1}, table
