# expect: AstjaxError TypeError
# jax: TypeError (TypeError): 'int' object is not callable
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

tree_util.tree_map(3, [1, 2])  # error
