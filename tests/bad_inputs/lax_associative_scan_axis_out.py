# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): axis 2 is out of bounds for array of dimension 1
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

lax.associative_scan(jnp.add, jnp.ones(3), axis=2)  # error
