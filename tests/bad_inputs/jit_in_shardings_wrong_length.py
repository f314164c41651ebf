# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): pjit in_shardings specification must be a tree prefix of the positional arguments tuple. In particular, pjit in_shardings must either be a Sharding, a Partition
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

from astjax.sharding import SingleDeviceSharding
s = SingleDeviceSharding(astjax.devices()[0])

def f(x, y):
    return x + y

astjax.jit(f, in_shardings=(s, s, s))(1.0, 2.0)  # error
