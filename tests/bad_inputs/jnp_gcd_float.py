# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): Arguments to jax.numpy.gcd must be integers.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

jnp.gcd(jnp.ones(3), jnp.ones(3))  # error
