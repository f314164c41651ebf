# expect: DTypeError TypeError
# jax: TypeError (TypeError): atan2 does not accept dtype int32 at position 0. Accepted dtypes at position 0 are subtypes of floating, complexfloating.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.atan2(jnp.ones(3, jnp.int32), jnp.ones(3, jnp.int32))  # error
