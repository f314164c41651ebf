# expect: AstjaxError TypeError
# jax: TypeError (TypeError): 'float' object cannot be interpreted as an integer
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

from astjax import random
random.split(random.PRNGKey(0), 2.5)  # error
