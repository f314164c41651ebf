# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): pytree structure error: different lengths of list at key path
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

from astjax import tree_util
tree_util.tree_map(lambda a, b: a + b, [1.0, 2.0], [1.0, 2.0, 3.0])  # error
