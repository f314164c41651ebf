# expect: AstjaxError ValueError
# jax: ValueError (ValueError): dtype argument to `normal` must be a float or complex dtype, got int32
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

from astjax import random
random.normal(random.PRNGKey(0), (2,), dtype=jnp.int32)  # error
