# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Argument to inv must have shape [..., n, n], got (2, 3).
# xfail: numpy/linalg: inv of a non-square matrix raises ShapeError (a TypeError); JAX raises ValueError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.linalg.inv(jnp.ones((2, 3)))  # error
