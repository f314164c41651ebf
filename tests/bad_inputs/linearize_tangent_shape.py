# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): linearized function called on tangent values inconsistent with the original primal values:
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.sin(x)

y, f_jvp = astjax.linearize(f, jnp.ones(3))
f_jvp(jnp.ones(2))  # error
