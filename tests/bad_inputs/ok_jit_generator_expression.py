# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return sum(x * i for i in range(3))

r = astjax.jit(f)(1.0)
assert float(r) == 3.0
