# expect: AstjaxError TypeError
# jax: TypeError (TypeError): function f at /work/wt/api-errors/tests/bad_inputs/arg_return_string.py:8 traced for jit returned a value of type <class 'str'>, which is not a valid JAX type
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return 'a'

astjax.jit(f)(1.0)  # error
