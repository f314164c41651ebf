# expect: DTypeError TypeError
# jax: TypeError (TypeError): shift_left does not accept dtype float32 at position 0. Accepted dtypes at position 0 are subtypes of integer.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x << 1  # error

astjax.jit(f)(np.ones(2, np.float32))
