# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): accumulate does not allow multiple axes
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax



@astjax.jit
def f(x):
    return jnp.subtract.accumulate(x, axis=None)  # error


f(jnp.arange(3.0))
