# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): pjit in_shardings specification must be a tree prefix of the positional arguments tuple. In particular, pjit in_shardings must either be a Sharding, a Partition
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

from astjax.sharding import SingleDeviceSharding
s = SingleDeviceSharding(astjax.devices()[0])
def f(x):
    return x

astjax.jit(f, in_shardings={'x': s})(jnp.ones(2))  # error
