# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): static_argnames and donate_argnames cannot intersect. Argument names {'x'} appear in both static_argnames and donate_argnames
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, y):
    return x + y

astjax.jit(f, static_argnums=0, donate_argnums=0)(1.0, jnp.ones(3))  # error
