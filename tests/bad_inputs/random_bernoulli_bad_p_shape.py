# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Incompatible shapes for broadcasting: shapes=[(2,), (3,)]
# xfail: random/__init__.py:139: a shape that does not broadcast with the parameters raises ShapeError (a TypeError); JAX raises ValueError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

from astjax import random
random.bernoulli(random.PRNGKey(0), jnp.ones(3), (2,))  # error
