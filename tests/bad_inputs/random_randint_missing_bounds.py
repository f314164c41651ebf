# expect: AstjaxError TypeError
# jax: TypeError (TypeError): randint() missing 2 required positional arguments: 'minval' and 'maxval'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

from astjax import random
random.randint(random.PRNGKey(0), (2,))  # error
