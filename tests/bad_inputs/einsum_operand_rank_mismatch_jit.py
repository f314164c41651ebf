# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Einstein sum subscript 'ij' does not contain the correct number of indices for operand 0.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.einsum('ij,j->i', x, x)  # error

astjax.jit(f)(jnp.ones(3))
