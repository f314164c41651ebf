# expect: DTypeError TypeError
# jax: TypeError (TypeError): rsqrt does not accept dtype int32. Accepted dtypes are subtypes of floating, complexfloating.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.rsqrt(jnp.arange(3))  # error
