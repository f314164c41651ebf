# expect: AstjaxError ValueError
# jax: ValueError (ValueError): axis 5 is out of bounds for array of dimension 3
# xfail: R12: numpy/shapes.py:expand_dims normalises the axis with % ndim and never range-checks it (silently wrong shape); JAX raises ValueError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.expand_dims(jnp.ones((2, 3)), 5)  # error
