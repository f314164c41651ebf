# expect: ShapeValueError ValueError
# jax: ValueError (ValueError): num_keys=3 must be between 1 and len(operand)=2
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

lax.sort((jnp.ones(3), jnp.ones(3)), num_keys=3)  # error
