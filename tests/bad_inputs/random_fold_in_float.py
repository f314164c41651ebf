# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

from astjax import random
assert random.fold_in(random.PRNGKey(0), 1.5).shape == (2,)
