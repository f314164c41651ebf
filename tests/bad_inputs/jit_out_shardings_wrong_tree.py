# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): Mismatch details (1 found):
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

from astjax.sharding import SingleDeviceSharding
s = SingleDeviceSharding(astjax.devices()[0])
astjax.jit(lambda x: (x, x), out_shardings=(s, s, s))(1.0)  # error
