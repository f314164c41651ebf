# expect: ArgumentError TypeError
# jax: TypeError (TypeError): Error interpreting argument to <function f at 0x7f010ce3ff60> as an abstract array. The problematic value is of type <class 'str'> and was passed to the functio
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x

astjax.jit(f)("hello")  # error
