# expect: ArityError TypeError
# jax: TypeError (TypeError): f() got an unexpected keyword argument 'x'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

def f(*args):
    return args[0]

astjax.jit(f)(x=1.0)  # error
