# expect: DTypeError TypeError
# jax: TypeError (TypeError): floor does not accept dtype complex64. Accepted dtypes are subtypes of floating.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.floor(jnp.ones(2) * 1j)  # error
