# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Need at least one array to stack.
# xfail: numpy/shapes.py:172: jnp.stack of mismatched/empty lists raises ShapeError (a TypeError); JAX raises ValueError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.stack([])  # error
