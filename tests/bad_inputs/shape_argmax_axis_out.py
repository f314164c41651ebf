# expect: AstjaxError IndexError
# jax: IndexError (IndexError): tuple index out of range
# xfail: numpy/sorting.py:41, the axis check of sort/cumsum/argmax, raises ShapeError (a TypeError); JAX raises ValueError (IndexError for argmax)
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.argmax(jnp.ones((2, 3)), axis=-3)  # error
