# expect: DTypeError TypeError
# jax: TypeError (TypeError): data type 'float128x' not understood
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.ones(3).astype('float128x')  # error
