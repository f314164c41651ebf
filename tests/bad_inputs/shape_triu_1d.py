# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Argument to jax.numpy.tril must be at least 2D
# xfail: TODO raw ValueError at /work/wt/api-errors/astjax/numpy/creation.py:241: not enough values to unpack (expected 2, got 1)
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.tril(jnp.ones(3))  # error
