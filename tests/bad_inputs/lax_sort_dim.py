# expect: AstjaxError ValueError
# jax: ValueError (ValueError): axis 1 is out of bounds for array of dimension 1
# xfail: primitives/cumulative.py:34, the lax axis check, raises ShapeError (a TypeError); JAX raises ValueError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.sort(jnp.ones(3), dimension=1)  # error
