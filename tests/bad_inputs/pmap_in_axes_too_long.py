# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): pytree structure error: different lengths of tuple at key path
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

astjax.pmap(f, in_axes=(0, 0))(jnp.ones((1, 3)))  # error
