# expect: ok
# jax: ok
# xfail: TODO rejected a valid program: TracerIntegerConversionError: /work/wt/api-errors/tests/bad_inputs/ok_static_argnums_negative.py:10:12         return jnp.zeros(n) + x                ^^^^^^^^^^^^ TracerInteg
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, n):
    return jnp.zeros(n) + x

assert astjax.jit(f, static_argnums=-1)(1.0, 2).shape == (2,)
