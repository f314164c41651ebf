# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): static_argnames and donate_argnames cannot intersect. Argument names {'y'} appear in both static_argnames and donate_argnames
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, y):
    return x + y

astjax.jit(f, static_argnames="y", donate_argnames="y")(jnp.ones(3), 2)  # error
