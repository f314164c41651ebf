# expect: AstjaxError TypeError
# jax: TypeError (TypeError): Error interpreting argument to <function f at 0x7f010ce6d3a0> as an abstract array. The problematic value is of type <class 'bytes'> and was passed to the funct
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x

astjax.jit(f)(b'ab')  # error
