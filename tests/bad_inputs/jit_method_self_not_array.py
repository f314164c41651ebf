# expect: AstjaxError TypeError
# jax: TypeError (TypeError): Error interpreting argument to <function A.f at 0x7f00ceff5a80> as an abstract array. The problematic value is of type <class '__bad_input__.A'> and was passed 
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

class A:
    def __init__(self, k):
        self.k = k

    @astjax.jit
    def f(self, x):
        return x * 2

A(1).f(2.0)  # error
