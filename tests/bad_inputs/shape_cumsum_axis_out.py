# expect: AstjaxError ValueError
# jax: ValueError (ValueError): axis 2 is out of bounds for array of dimension 2
# xfail: numpy/sorting.py:41, the axis check of sort/cumsum/argmax, raises ShapeError (a TypeError); JAX raises ValueError (IndexError for argmax)
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.cumsum(jnp.ones((2, 3)), axis=2)  # error
