# expect: ShapeValueError ValueError
# jax: ValueError (ValueError): randint parameter shapes must be broadcast-compatible with shape argument, and the result of broadcasting the shapes must equal the shape argument, but got resu
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

from astjax import random
random.randint(random.PRNGKey(0), (3,), jnp.zeros((2, 3), jnp.int32), 5)  # error
