# expect: AstjaxError TypeError
# jax: TypeError (TypeError): Error interpreting argument to <function f at 0x7f010ce6ccc0> as an abstract array. The problematic value is of type <class 'object'> and was passed to the func
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x

astjax.jit(f)(object())  # error
