# expect: AstjaxError ValueError
# jax: ValueError (ValueError): None is not a valid value for jnp.array
# xfail: numpy/creation.py:60 raises ArgumentTypeError for None; JAX raises ValueError for jnp.array(None)
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.array(None)  # error
