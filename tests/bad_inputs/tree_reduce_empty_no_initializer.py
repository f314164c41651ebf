# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): reduce() of empty iterable with no initial value
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

tree_util.tree_reduce(lambda a, b: a + b, [])  # error
