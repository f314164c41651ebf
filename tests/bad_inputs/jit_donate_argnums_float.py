# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): 'float' object is not iterable
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

def f(x):
    return x * 2

astjax.jit(f, donate_argnums=0.5)(jnp.ones(3))  # error
