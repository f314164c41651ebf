# expect: DTypeError TypeError
# jax: TypeError (TypeError): sin does not accept dtype int32. Accepted dtypes are subtypes of floating, complexfloating.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.sin(jnp.ones(3, jnp.int32))  # error
