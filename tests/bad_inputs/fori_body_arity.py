# expect: ArityError TypeError
# jax: TypeError (TypeError): body() takes 1 positional argument but 2 were given
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

def body(c):
    return c + 1

lax.fori_loop(0, 3, body, 0.0)  # error
