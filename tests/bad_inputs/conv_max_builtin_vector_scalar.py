# expect: AstjaxError ValueError
# jax: ValueError (ValueError): The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax


def f(x):
    return max(x, 0.0)  # error

astjax.jit(f)(jnp.ones(3))
