# expect: ShapeValueError ValueError
# jax: ValueError (ValueError): p must be None or a 1D vector with the same size as a.shape[axis]. p has shape (4,) and a.shape[axis] is 5.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

from astjax import random
random.choice(random.PRNGKey(0), 5, p=jnp.ones(4) / 4)  # error
