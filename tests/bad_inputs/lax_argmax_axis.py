# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Invalid axis 1 for operand shape (3,)
# xfail: primitives/cumulative.py:34, the lax axis check, raises ShapeError (a TypeError); JAX raises ValueError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.argmax(jnp.ones(3), 1, jnp.int32)  # error
