# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

from astjax import random
assert random.normal(random.PRNGKey(0), (2, 3)).shape == (2, 3)
