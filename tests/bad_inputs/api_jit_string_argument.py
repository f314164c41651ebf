# expect: ArgumentError TypeError
# xfail: ArgumentError is not yet a TypeError (classify the ArgumentError sites against JAX)
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x

astjax.jit(f)("hello")  # error
