# expect: ShapeError TypeError
# jax: TypeError (TypeError): mul got incompatible shapes for broadcasting: (3,), (2,).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

from astjax import random
random.uniform(random.PRNGKey(0), (3,), minval=jnp.zeros(2))  # error
