# expect: ArityError TypeError
# jax: TypeError (TypeError): t() missing 1 required positional argument: 'x'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

def t(x):
    return x

lax.cond(jnp.array(True), t, t)  # error
