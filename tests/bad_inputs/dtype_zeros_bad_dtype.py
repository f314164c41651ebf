# expect: DTypeError TypeError
# jax: TypeError (TypeError): data type 'bogus' not understood
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.zeros(3, dtype='bogus')  # error
