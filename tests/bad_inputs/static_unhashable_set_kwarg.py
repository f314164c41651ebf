# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): Non-hashable static arguments are not supported. An error occurred while trying to hash an object of type <class 'set'>, {1, 2}. The error was:
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, opts=None):
    return x

astjax.jit(f, static_argnames="opts")(1.0, opts={1, 2})  # error
