# expect: AstjaxError ValueError
# jax: ValueError (ValueError): diag input must be 1d or 2d
# xfail: numpy/: jnp.diag of a 3-D array is not rejected (silent result); JAX raises ValueError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.diag(jnp.ones((2, 2, 2)))  # error
