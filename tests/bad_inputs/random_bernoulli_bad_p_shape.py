# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Incompatible shapes for broadcasting: shapes=[(2,), (3,)]
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

from astjax import random
random.bernoulli(random.PRNGKey(0), jnp.ones(3), (2,))  # error
