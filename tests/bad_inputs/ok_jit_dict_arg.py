# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(d):
    return d['a'] + d['b']

assert float(astjax.jit(f)({'a': 1.0, 'b': 2.0})) == 3.0
