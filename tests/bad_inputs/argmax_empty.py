# expect: AstjaxError ValueError
# jax: ValueError (ValueError): attempt to get argmax of an empty sequence
# xfail: numpy/sorting.py:58: argmax of an empty array raises ShapeError (a TypeError); JAX raises ValueError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.argmax(jnp.zeros(0))  # error
