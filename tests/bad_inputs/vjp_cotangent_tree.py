# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): unexpected tree structure.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

y, pullback = astjax.vjp(f, jnp.ones(3))
pullback((jnp.ones(3),))  # error
