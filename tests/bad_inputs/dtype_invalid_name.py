# expect: DTypeError TypeError
# jax: TypeError (TypeError): data type 'floatx' not understood
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

x = jnp.zeros(3, dtype="floatx")  # error
