# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

from astjax import random
assert random.split(random.PRNGKey(0), 3).shape == (3, 2)
