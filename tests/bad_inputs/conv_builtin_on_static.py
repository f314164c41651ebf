# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax


def f(x, s):
    n = len(s)
    return x * n

assert float(astjax.jit(f, static_argnums=1)(2.0, 'abc')) == 6.0
