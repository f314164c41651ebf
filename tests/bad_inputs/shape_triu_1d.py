# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Argument to jax.numpy.tril must be at least 2D
# xfail: numpy/creation.py:241: tril/triu do not check for a 2-D operand and fail with a raw unpacking ValueError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.tril(jnp.ones(3))  # error
