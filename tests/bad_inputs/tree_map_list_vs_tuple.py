# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): pytree structure error: different types at key path
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

tree_util.tree_map(lambda a, b: a + b, [1, 2], (1, 2))  # error
