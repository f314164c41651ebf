# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Argument to _det() must have shape [..., n, n], got (3,)
# xfail: numpy/linalg: det of a 1-D array raises ShapeError (a TypeError); JAX raises ValueError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.linalg.det(jnp.ones(3))  # error
