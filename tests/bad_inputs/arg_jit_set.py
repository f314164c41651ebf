# expect: AstjaxError TypeError
# jax: TypeError (TypeError): Error interpreting argument to <function f at 0x7f010ce3fce0> as an abstract array. The problematic value is of type <class 'set'> and was passed to the functio
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x

astjax.jit(f)({1, 2})  # error
