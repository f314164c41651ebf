# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): JAX encountered invalid PRNG key data: expected key_data to have ndim, shape, and dtype attributes. Got 0
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

from astjax import random
random.normal(0, (2,))  # error
