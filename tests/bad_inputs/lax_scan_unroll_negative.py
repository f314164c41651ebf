# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): `unroll` must be a `bool` or a non-negative `int`.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

lax.scan(lambda c, x: (c + x, x), 0.0, jnp.ones(3), unroll=-1)  # error
