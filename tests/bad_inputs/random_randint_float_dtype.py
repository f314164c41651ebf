# expect: DTypeError TypeError
# jax: TypeError (TypeError): randint only accepts integer dtypes, got float32
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

from astjax import random
random.randint(random.PRNGKey(0), (2,), 0, 5, dtype=jnp.float32)  # error
