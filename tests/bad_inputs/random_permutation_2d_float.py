# expect: AstjaxError TypeError
# jax: TypeError (TypeError): x must be an integer or at least 1-dimensional
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

from astjax import random
random.permutation(random.PRNGKey(0), 2.5)  # error
