# expect: ArgumentError TypeError
# jax: TypeError (TypeError): Expected a function, got a generator function: <function f at 0x7fc3fa0945e0>
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    for i in range(3):
        yield x * i

astjax.jit(f)(jnp.ones(3))  # error
