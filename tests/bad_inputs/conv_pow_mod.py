# expect: AstjaxError TypeError
# jax: TypeError (TypeError): _operator_pow() takes 2 positional arguments but 3 were given
# xfail: frontend/operators.call calls the builtin on the staged value and lets its raw TypeError/ValueError escape from inside astjax (JAX raises it in the user's frame); needs a located re-raise
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return pow(x.astype(int), 2, 5)  # error

astjax.jit(f)(jnp.ones(3))
