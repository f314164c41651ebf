# expect: DTypeError TypeError
# jax: TypeError (TypeError): rem does not accept dtype complex64 at position 0. Accepted dtypes at position 0 are subtypes of integer, floating.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.mod(jnp.ones(2) * 1j, 2.0)  # error
