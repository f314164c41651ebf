# expect: ShapeValueError ValueError
# jax: ValueError (ValueError): bernoulli parameter shapes must be broadcast-compatible with shape argument, and the result of broadcasting the shapes must equal the shape argument, but got re
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

from astjax import random
random.bernoulli(random.PRNGKey(0), jnp.full((2, 3), 0.5), shape=(3,))  # error
