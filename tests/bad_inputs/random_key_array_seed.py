# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): PRNGKey accepts a scalar seed, but was given an array of shape (2,) != (). Use jax.vmap for batching
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

from astjax import random
random.PRNGKey(jnp.ones(2))  # error
