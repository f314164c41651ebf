# expect: AstjaxError TypeError
# jax: TypeError (TypeError): g() takes 1 positional argument but 2 were given
# xfail: frontend/operators.py:105 calls the converted function without binding its signature first: the raw TypeError names the generated ag__factory.<locals>.g
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def g(x):
    return x + 1

def f(x):
    return g(x, x)  # error

astjax.jit(f)(1.0)
