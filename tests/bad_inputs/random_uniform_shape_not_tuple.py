# expect: AstjaxError TypeError
# jax: TypeError (TypeError): Shapes must be 1D sequences of concrete values of integer type, got ab.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

from astjax import random
random.uniform(random.PRNGKey(0), 'ab')  # error
