# expect: AstjaxError TypeError
# jax: TypeError (TypeError): function f at /work/wt/api-errors/tests/bad_inputs/arg_return_object.py:8 traced for jit returned a value of type <class 'object'>, which is not a valid JAX typ
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return object()

astjax.jit(f)(1.0)  # error
