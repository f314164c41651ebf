# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): max() arg is an empty sequence
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

def f(x):
    return jnp.sum(x)

astjax.grad(f, argnums=())(jnp.ones(3))  # error
