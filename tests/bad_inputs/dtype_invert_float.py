# expect: DTypeError TypeError
# jax: TypeError (TypeError): not does not accept dtype float32. Accepted dtypes are subtypes of integer, bool.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

~jnp.ones(3)  # error
