# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): Non-hashable static arguments are not supported. An error occurred while trying to hash an object of type <class 'list'>, [1, 2]. The error was:
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

def f(x, opts):
    return x

astjax.jit(f, static_argnames="opts")(jnp.ones(3), opts=[1, 2])  # error
